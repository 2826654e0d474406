"""The compiled modules, optional: where they cannot be built (no C compiler), the
install goes on and the same code runs in Python: Short Circuit's playouts
(engine/shortcircuitplayout.py), Hex's prover (engine/ai/hexsolve.py), Hex's playouts
(engine/ai/hexai.py) and the search's inner loops (engine/ai/mcts.py)."""

import sys

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "engine._shortcircuit_playout",
            ["engine/_shortcircuit_playout.c"],
            optional=True,
        ),
        Extension(
            "engine._hexsolve",
            ["engine/_hexsolve.c"],
            depends=[
                "engine/_hexsolve_board.h",
                "engine/_hexsolve_connections.h",
                "engine/_hexsolve_hsearch.h",
                "engine/_hexsolve_table.h",
            ],
            optional=True,
        ),
        Extension("engine._hexplayout", ["engine/_hexplayout.c"], optional=True),
        # Python's arithmetic exactly: no fused multiply-add (GCC and Clang's flag).
        Extension(
            "engine._mcts",
            ["engine/_mcts.c"],
            extra_compile_args=[] if sys.platform == "win32" else ["-ffp-contract=off"],
            optional=True,
        ),
    ]
)
