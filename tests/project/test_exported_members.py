"""The package root exports exactly the documented API (as httpx's test of its members does):
ten functions, the types they take and return, and the root of the exception hierarchy."""

import inspect

import auditor
import auditor.api

API = {
    "assemble", "audit", "check", "compare", "export", "gate", "gather", "ingest", "query", "verify",
    "Assembled", "AuditOutcome", "AuditorError", "BatchResult", "CheckResult", "Comparison", "ExportResult",
    "FileQuery", "GateResult", "GatherQuery", "Limits", "Policy", "Store", "Verification",
}


def _isort_order(name: str) -> tuple[int, str]:
    """The order ruff (RUF022) keeps ``__all__`` in: CONSTANTS, then Classes, then functions."""
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


def test_the_package_exports_exactly_the_api():
    assert set(auditor.__all__) == API
    assert auditor.__all__ == sorted(auditor.__all__, key=_isort_order)
    assert sorted(auditor.__all__) == sorted(auditor._EXPORTS)
    public = {n for n in dir(auditor) if not n.startswith("_") and not inspect.ismodule(getattr(auditor, n))}
    assert public == API, "names beyond the API at the package root (submodules are internal)"


def test_every_entry_point_is_typed_and_documented():
    for name in ("assemble", "audit", "check", "compare", "export", "gate", "gather", "ingest", "query", "verify"):
        fn = getattr(auditor, name)
        assert fn is getattr(auditor.api, name) and fn.__doc__
        sig = inspect.signature(fn)
        assert sig.return_annotation is not inspect.Signature.empty, name
        assert all(p.annotation is not inspect.Parameter.empty for p in sig.parameters.values()), name


def test_library_round_trip(tmp_path):
    """The API alone, as the README's library section uses it: ingest, audit, verify, check,
    query, gather, compare, assemble."""
    from tests.support import synth

    contract = synth.contract(91, 10_000)
    (tmp_path / "c.txt").write_text(contract)
    (tmp_path / "f.txt").write_text(synth.filing(92, 40_000, exhibits=[contract])[0])
    (tmp_path / "q.txt").write_text(contract)
    with auditor.Store(tmp_path / "x.db") as store:
        result = auditor.ingest(store, [tmp_path / "c.txt", tmp_path / "f.txt"], workers=1)
        assert result.counts["ok"] == 2
        outcome = auditor.audit(store, out=tmp_path / "rep")
        assert not outcome.refused and len(outcome.report["findings"]) == 1
        assert auditor.verify(tmp_path / "rep", store).ok
        assert auditor.check(store, quick=True).ok
        [answer] = auditor.query(store, [tmp_path / "q.txt"])
        assert answer.result is not None and answer.result.matches
        [cover] = auditor.gather(store, [str(tmp_path / "f.txt")])
        assert cover.result is not None and cover.result.components
        cmp = auditor.compare(store, str(tmp_path / "c.txt"), str(tmp_path / "f.txt"))
        assert cmp.containment and cmp.measures["jaccard"]["value"] < 0.5
        plan = auditor.assemble(store, tmp_path / "corpus")
        assert auditor.verify(tmp_path / "corpus", store).ok and plan.manifest["digest"]
