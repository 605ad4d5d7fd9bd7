#!/usr/bin/env python3
"""QR codes from an independent encoder (segno) for omni's Connect QR tests.

Usage: connect_qr_peer.py < [{"text": "...", "mask": 0..7}, ...]
Prints one JSON array: for each input {"version", "rows": ["0101…", …], "penalties": [8 scores]} — byte mode,
error-correction level L, no error boost, the smallest version that fits, the given data mask. Rows are top to
bottom without the quiet zone, "1" for a dark module. "penalties" are segno's ISO penalty scores of the finished
symbol (format and version information included) for each of the 8 masks.

segno itself scores masks before the format information is drawn; omni (like most encoders) scores the finished
symbol, so the two may pick different masks for the same data. That is why the mask is an input here and the
scores are reported for the finished symbols: omni's choice can be checked against segno's scoring.
"""
import json
import sys

import segno
from segno import consts, encoder


def iso_padding_bits(buff, version, length):
    """ISO/IEC 18004:2015 §7.4.10: zero bits are added only when the stream does not end on a codeword boundary.

    segno 1.6.6 adds eight zero bits (a whole 0x00 codeword) when it already does, which in byte mode with a full
    terminator is always; readers still decode it, but the modules differ from every conforming encoder. This is the
    one place the peer departs from segno; everything else (Reed-Solomon, interleaving, placement, masks, penalties,
    format and version bits) is segno's own.
    """
    if version not in (consts.VERSION_M1, consts.VERSION_M3) and length % 8:
        buff.extend([0] * (8 - length % 8))


encoder.write_padding_bits = iso_padding_bits


def symbol(text, mask):
    return segno.make(text, error="l", mode="byte", boost_error=False, micro=False, mask=mask)


def main():
    answers = []
    for item in json.load(sys.stdin):
        code = symbol(item["text"], item["mask"])
        rows = ["".join("1" if dark else "0" for dark in row) for row in code.matrix_iter(scale=1, border=0)]
        penalties = []
        for mask in range(8):
            candidate = symbol(item["text"], mask)
            width = len(candidate.matrix)
            penalties.append(encoder.evaluate_mask([bytearray(row) for row in candidate.matrix], width, width))
        answers.append({"version": code.version, "rows": rows, "penalties": penalties})
    print(json.dumps(answers))


if __name__ == "__main__":
    main()
