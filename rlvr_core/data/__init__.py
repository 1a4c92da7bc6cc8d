"""Datasets: the source registry, store-backed loader/cache, mixing and curricula.

Import from the submodules (`rlvr_core.data.loader`, `.mixing`, ...); this
package imports nothing heavy. The row type, `Problem`, is `rlvr_core.problem`.
"""
