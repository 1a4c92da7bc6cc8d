"""Built-in dataset sources, one file per family; `registry.py` registers `BUILTIN`."""

from rlvr_core.data.sources.arith import ARITH
from rlvr_core.data.sources.arith_chain import ARITH_CHAIN
from rlvr_core.data.sources.gsm8k import GSM8K
from rlvr_core.data.sources.ifbench import IFBENCH_TEST
from rlvr_core.data.sources.ifeval import IF_MULTI, RLVR_IFEVAL
from rlvr_core.data.sources.math import MATH
from rlvr_core.data.sources.mbpp import MBPP

BUILTIN = (GSM8K, MATH, MBPP, RLVR_IFEVAL, IF_MULTI, IFBENCH_TEST, ARITH, ARITH_CHAIN)
