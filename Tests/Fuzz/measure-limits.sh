#!/bin/sh
# Peak memory of every parser on the worst inputs of its limits (the "Limits" table in docs/security.md).
#   Tests/Fuzz/measure-limits.sh [OMNI_FUZZ] [DIR]
# writes the inputs with `omni-fuzz hostile DIR`, runs each through `omni-fuzz run TARGET FILE` under
# /usr/bin/time and prints: target, case, input size, exit status, seconds, peak RSS, and the peak beyond the
# target's baseline (the same run on an empty input) minus the input's own size — the figure that must stay within
# 64 MiB. `--parse-only` runs the parser alone, as omni calls it, without the harness's property checks.
set -eu
fuzz=${1:-.build/debug/omni-fuzz}
dir=${2:-.build/hostile}
rm -rf "$dir"
"$fuzz" hostile "$dir"
: > "$dir/empty"
printf '%-20s %-32s %10s %6s %8s %9s %9s\n' target case input_MiB status seconds peak_MiB beyond_MiB
for target_dir in "$dir"/*/; do
  target=$(basename "$target_dir")
  base=$(SWIFT_BACKTRACE=enable=no /usr/bin/time -f '%x %M' "$fuzz" run --parse-only "$target" "$dir/empty" 2>&1 >/dev/null | tail -1 | cut -d' ' -f2)
  for input in "$target_dir"*; do
    size=$(stat -c %s "$input")
    result=$(SWIFT_BACKTRACE=enable=no /usr/bin/time -f '%x %e %M' "$fuzz" run --parse-only "$target" "$input" 2>&1 >/dev/null | tail -1)
    echo "$result" | awk -v t="$target" -v c="$(basename "$input")" -v s="$size" -v b="$base" '{
      printf "%-20s %-32s %10.2f %6s %8.2f %9.1f %9.1f\n", t, c, s / 1048576, $1, $2, $3 / 1024, ($3 - b) / 1024 - s / 1048576 }'
  done
done
