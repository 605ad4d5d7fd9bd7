#!/bin/sh
# Peak memory of every parser on the worst inputs of its limits (the "Limits" table in docs/security.md).
#   Tests/Fuzz/measure-limits.sh [OMNI_FUZZ] [DIR]
# writes the inputs with `omni-fuzz hostile DIR` (`-at` names: the most a limit lets through; `-over`: just past
# it), runs each through `omni-fuzz run --parse-only TARGET FILE` (the parser as omni calls it, without the fuzz
# properties) under /usr/bin/time, and prints: target, case, input size, accepted or refused, seconds, peak RSS,
# and the peak beyond the target's baseline (the same run on an empty input) minus the input's own size — the
# figure that must stay within 64 MiB.
set -eu
fuzz=${1:-.build/debug/omni-fuzz}
dir=${2:-.build/hostile}
rm -rf "$dir"
"$fuzz" hostile "$dir"
: > "$dir/empty"
measurement="$dir/time"
printf '%-20s %-34s %10s %9s %8s %9s %10s\n' target case input_MiB verdict seconds peak_MiB beyond_MiB
for target_dir in "$dir"/*/; do
  target=$(basename "$target_dir")
  SWIFT_BACKTRACE=enable=no /usr/bin/time -o "$measurement" -f '%M' "$fuzz" run --parse-only "$target" "$dir/empty" >/dev/null 2>&1
  base=$(tail -1 "$measurement")
  for input in "$target_dir"*; do
    size=$(stat -c %s "$input")
    verdict=$(SWIFT_BACKTRACE=enable=no /usr/bin/time -o "$measurement" -f '%e %M' "$fuzz" run --parse-only "$target" "$input" 2>/dev/null) || verdict=crashed
    case "$verdict" in
      *": 1 of 1 input accepted") verdict=accepted ;;
      *": 0 of 1 input accepted") verdict=refused ;;
    esac
    tail -1 "$measurement" | awk -v t="$target" -v c="$(basename "$input")" -v s="$size" -v b="$base" -v v="$verdict" '{
      printf "%-20s %-34s %10.2f %9s %8.2f %9.1f %10.1f\n", t, c, s / 1048576, v, $1, $2 / 1024, ($2 - b) / 1024 - s / 1048576 }'
  done
done
