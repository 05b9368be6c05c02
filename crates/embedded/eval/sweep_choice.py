#!/usr/bin/env python3
"""Replays the tool choice of `route_eval --dump` files under other constants.

    python3 crates/embedded/eval/sweep_choice.py DUMP.jsonl [DUMP.jsonl ...]

Each dump line holds a message's candidate scores (the model's calibrated
score, the similarity, whether a shape matched, whether the tool serves the
message's action) and its form. The choice is recomputed as
`route/choose.rs`'s `decide` makes it, for a grid of the similarity weight
(W, tuning.rs SIMILARITY_WEIGHT), the call margin (M, CALL_MARGIN) and the
statement margin (S, STATEMENT_MARGIN). It prints the configured constants'
figures, then the best grid point whose small talk goes to no tool at least
as often as `--talk-floor` (default 0.95), per dump and per language.

The replay first checks itself: with the configured constants it must make
the choice each dump recorded, and it exits with an error otherwise (the
rule in `decide` has changed and this script must follow it). Requests that
must call a tool are not marked in the dumps; the check catches them too.
"""

import argparse
import itertools
import json
import sys
from pathlib import Path

CONFIGURED = (12.0, 4.0, 8.0)
SHAPE_CHOICE_BONUS = 4.0
GRID_W = [0, 4, 8, 12, 16, 24, 32]
GRID_M = [-4, -2, 0, 2, 4, 6, 8, 12]
GRID_S = [0, 4, 8, 12, 16]


def decide(case, weight, margin, statement):
    *tools, none = case["scores"]

    def combined(score):
        bonus = SHAPE_CHOICE_BONUS if score.get("shape") else 0.0
        return score["model"] + weight * score["similarity"] + bonus

    serving = [(combined(s), s["name"]) for s in tools if s["serves"]]
    if not serving:
        return None
    best, name = max(serving)
    form_margin = statement if case["form"] == "statement" else 0.0
    return name if best > combined(none) + margin + form_margin else None


def figures(dumps, constants):
    talk = [c for cases in dumps.values() for c in cases if c["expected"] is None]
    to_none = sum(decide(c, *constants) is None for c in talk) / max(1, len(talk))
    choice = {
        name: sum(decide(c, *constants) == c["expected"] for c in cases) / max(1, len(cases))
        for name, cases in dumps.items()
    }
    return to_none, choice


def report(label, dumps, constants):
    to_none, choice = figures(dumps, constants)
    weight, margin, statement = constants
    print(f"{label}: W={weight:g} M={margin:g} S={statement:g}  small talk -> none {to_none:.0%}")
    for name, cases in dumps.items():
        by_language = []
        for language in sorted({c["lang"] for c in cases}):
            own = [c for c in cases if c["lang"] == language]
            right = sum(decide(c, *constants) == c["expected"] for c in own)
            by_language.append(f"{language} {right}/{len(own)}")
        print(f"  {name}: choice {choice[name]:.0%} ({', '.join(by_language)})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dumps", nargs="+", type=Path)
    parser.add_argument("--talk-floor", type=float, default=0.95)
    args = parser.parse_args()
    dumps = {
        path.stem: [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        for path in args.dumps
    }
    cases = [c for group in dumps.values() for c in group]
    agree = sum(decide(c, *CONFIGURED) == c["chosen"] for c in cases)
    if agree != len(cases):
        sys.exit(f"the replay disagrees with route_eval on {len(cases) - agree} of {len(cases)} cases")

    report("configured", dumps, CONFIGURED)
    best = None
    for constants in itertools.product(GRID_W, GRID_M, GRID_S):
        to_none, choice = figures(dumps, constants)
        mean = sum(choice.values()) / len(choice)
        if to_none >= args.talk_floor and (best is None or mean > best[0]):
            best = (mean, constants)
    if best is None:
        print(f"no grid point sends {args.talk_floor:.0%} of small talk to no tool")
    else:
        report("best on these dumps", dumps, best[1])


if __name__ == "__main__":
    main()
