"""Benchmarks. Run each as a module from the top of the repo: python -m bench.engine"""
