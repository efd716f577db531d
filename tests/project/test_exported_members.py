import auditor
import auditor.corpus.ingest
import auditor.extract
import auditor.text.normalize


def _isort_order(name: str) -> tuple[int, str]:
    """The order ruff (RUF022) keeps ``__all__`` in: CONSTANTS, then Classes, then functions."""
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


def test_public_names_are_exported_and_sorted():
    assert auditor.__all__ == sorted(auditor.__all__, key=_isort_order)
    assert sorted(auditor.__all__) == sorted(auditor._EXPORTS)  # every lazy export is public
    for name in auditor.__all__:
        assert getattr(auditor, name) is not None
    assert all(type(m).__name__ == "module" for m in (auditor.corpus.ingest, auditor.extract, auditor.text.normalize))


def test_library_round_trip(tmp_path):
    """The library alone, as the README's commands use it: ingest, audit, verify."""
    from auditor.corpus.ingest import ingest
    from auditor.demo import synth

    contract = synth.contract(91, 10_000)
    (tmp_path / "c.txt").write_text(contract)
    (tmp_path / "f.txt").write_text(synth.filing(92, 40_000, exhibits=[contract])[0])
    with auditor.Store(tmp_path / "x.db") as store:
        ingest(store, [tmp_path / "c.txt", tmp_path / "f.txt"], workers=1)
        outcome = auditor.audit_job(store, out=tmp_path / "rep")
        assert not outcome.refused and len(outcome.report["findings"]) == 1
        assert auditor.verify(tmp_path / "rep", store).ok
