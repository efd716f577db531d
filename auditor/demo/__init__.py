"""For demos and benchmarks, not the engine: the bundled demo corpus (:mod:`~auditor.demo.corpus`,
``auditor demo``) and the synthetic legal prose it is written from (:mod:`~auditor.demo.synth`),
which the benchmarks, the tests and the fixture controls use too, and the corpus-drawn controls
borrow ``synth.reformat`` from.
"""

from auditor.demo.corpus import DEMO_PDF, LEASE_SEED, build_corpus, lease_text

__all__ = ["DEMO_PDF", "LEASE_SEED", "build_corpus", "lease_text"]
