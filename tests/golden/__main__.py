"""Check the golden replays, or store them again after a deliberate change.

.venv/bin/python -m tests.golden            # which stored games differ, and how
.venv/bin/python -m tests.golden --write    # play them again and store them
"""

from __future__ import annotations

import argparse

from tests.golden import replayed, stored, write


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.golden", description=__doc__)
    parser.add_argument("--write", action="store_true", help="play and store every golden")
    if parser.parse_args().write:
        write()
        print("stored the goldens in tests/golden/: read the diff before committing it")
        return
    differ = 0
    for game, records in stored().items():
        for index, record in enumerate(records):
            now = replayed(record)
            changed = [key for key in record if now.get(key) != record[key]]
            if changed:
                differ += 1
                print(f"{game} #{index} ({record['source']}): {', '.join(changed)} changed")
    print(f"{differ} golden game(s) differ" if differ else "every golden game replays the same")


if __name__ == "__main__":
    main()
