"""Assemble a corpus from an audit run: a keep/drop plan with a reason for every document, and
the kept documents' texts with their provenance.

The plan is made from the store alone: the run's covered documents (``run_documents``), its
containing pairs (``findings``), withdrawals, failed inputs and provenance. Nothing is measured
again and no containment is assumed that the run did not measure.

**The invariant.** A document dropped as a redundant copy (``contained-in``, ``duplicate-of``,
``near-duplicate-of``) names the document kept in its place, and that document is kept: no
chain ends in a dropped document and there is no cycle. Documents dropped for other reasons
(``withdrawn``, ``failed``, ``not-auditable``) are not copies of anything and name no document.

**Resolution** (:func:`resolve`, pure, no I/O). Exact duplicates (identical normalised text)
form a *unit*, measured through its representative. Units that contain one another (both ways at
the threshold) are connected into *families*; families are ordered so that a family comes after
every family holding one of its members (containers first; the rare cycles of one-way
containment are taken together, in policy order). Documents are then decided one at a time in
that order, so when a document is dropped, the document it points to was already kept:

1. a unit that already has a kept member: the next member is a ``duplicate-of`` it;
2. a unit containing and contained in a unit with a kept member: ``near-duplicate-of`` it;
3. a unit contained in a unit with a kept member: ``contained-in`` it, unless the policy keeps it
   (boilerplate kept once, EDGAR exhibits kept as separate documents, contained documents kept,
   a newer version under ``newest``);
4. otherwise the document is kept.

Within a family the members come in policy order (earliest ingested, newest, preferred source,
or largest), so the policy's choice is the survivor, except where a member is contained one way
in another (the container comes first: the survivor should hold the others). A member that the
survivor does not contain (a family is connected, not complete) is kept, not pointed at a
document that was never measured to contain it.

**Versions.** Under the survivor policy ``newest`` (first), a family's members are decided
strictly newest first, and no document is dropped in favour of an older one: one contained only
in older kept documents is kept (``newer``: a later version that cut text). A near-duplicate
older than the document kept in its place is ``superseded-by`` it, whatever the policy. Dates
come from :mod:`auditor.store.dating`; every plan line shows them.
"""

from auditor.assembly.changes import changes, read_previous
from auditor.assembly.files import CORPUS, FORMAT
from auditor.assembly.job import Assembled, assemble, assemble_parquet, is_assembly
from auditor.assembly.plan import Assembly, PlanEntry, plan
from auditor.assembly.policy import DECISION_TABLE, REDUNDANT, Policy
from auditor.assembly.resolve import Decision, check_plan, resolve
from auditor.assembly.verify import summary_lines, verify

__all__ = [
    "CORPUS", "DECISION_TABLE", "FORMAT", "REDUNDANT", "Assembled", "Assembly", "Decision", "PlanEntry", "Policy",
    "assemble", "assemble_parquet", "changes", "check_plan", "is_assembly", "plan", "read_previous", "resolve",
    "summary_lines", "verify",
]
