"""The one compiled module, optional: where it cannot be built (no C compiler), the
install goes on and Short Circuit's playouts run in Python (engine/shortcircuit.py)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "engine._shortcircuit_playout",
            ["engine/_shortcircuit_playout.c"],
            optional=True,
        )
    ]
)
