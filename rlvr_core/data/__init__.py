"""Datasets: the `Problem` schema, source registry, store-backed loader/cache, mixing and curricula.

Import from the submodules (`rlvr_core.data.loader`, `.mixing`, ...); this
package imports nothing heavy so `rlvr_core.data.schema` stays cheap.
"""
