"""The compiled modules, optional: where they cannot be built (no C compiler), the
install goes on and the same code runs in Python: Short Circuit's playouts
(engine/shortcircuit.py), Hex's prover (engine/ai/hexsolve.py) and Hex's playouts
(engine/ai/hexai.py)."""

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
            depends=["engine/_hexsolve_connections.h"],
            optional=True,
        ),
        Extension("engine._hexplayout", ["engine/_hexplayout.c"], optional=True),
    ]
)
