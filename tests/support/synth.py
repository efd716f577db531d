"""Deterministic synthetic legal prose: contracts and annual-report filings (reformattings come
from :mod:`auditor.text.reformat`, which the controls use too, and are re-exported here).

The demo corpus, the tests and the benchmark all need documents whose containment
relations are known exactly. Real contracts cannot be shipped, so this module writes its own:
every word list, clause and template below was written for this project.

Design constraints, and how they are met:

* Same seed, same bytes, on every run and platform: only ``random.Random(seed)`` instances are
  used, drawn with ``random()`` (a float, reproducible everywhere), and nothing iterates a set.
* Unrelated documents must not collide in 5-word shingles, yet must share a little ordinary
  boilerplate as real contracts do. Sentences are built from frames whose literal runs are
  short (mostly three words or fewer) between slots filled from large pools (nouns, adjectives,
  verbs, coined names, amounts, dates, per-document party names and defined terms), so a random
  5-gram almost never recurs; boilerplate clauses (governing law, notices, severability...) come
  from a shared pool with a few variants each, so they do recur.
* Speed (140 MB in well under a minute): phrase banks are built once, sentences are
  ``str.format`` calls over pre-parsed frames, and wrapping is one regex ``findall`` per
  paragraph.
"""

from __future__ import annotations

import html
import random
import re
from collections.abc import Callable, Sequence
from functools import cache
from typing import TypeVar

from auditor.errors import UsageError
from auditor.text.reformat import (
    HYPHENATED_LINE_END,
    PARAGRAPH_BREAK,
    add_page_furniture,
    curly_quotes,
    hyphenate_line_ends,
    is_block,
    is_heading,
    is_table,
    paragraphs,
    pick,
    reformat,
    rewrap,
    upper_headings,
    wrap,
)

__all__ = [
    "CONTRACT_KINDS",
    "add_page_furniture",
    "certification",
    "contract",
    "curly_quotes",
    "filing",
    "filing_company",
    "filing_parts",
    "hyphenate_line_ends",
    "partial",
    "reformat",
    "rewrap",
    "subsidiaries",
    "to_html",
    "to_html_parts",
    "upper_headings",
    "word_count",
]

T = TypeVar("T")


def _words(block: str) -> list[str]:
    return block.split()


# ---------------------------------------------------------------------------------------------
# Word material. Plurals and past participles follow English rules unless given as "a/b".
# ---------------------------------------------------------------------------------------------

_NOUNS = _words("""
agreement obligation payment license territory deliverable service product invoice fee charge
expense cost price rate royalty milestone warranty representation covenant condition term
provision clause exhibit schedule annex appendix amendment waiver consent notice approval
authorization certificate report statement record ledger account audit inspection review
assessment evaluation estimate forecast budget plan program project phase stage specification
requirement standard guideline policy procedure practice method process system platform
application module interface database network server workstation device instrument tool
equipment facility premises property asset interest right title claim demand action suit
proceeding arbitration mediation dispute controversy judgment award order decree injunction
remedy loss liability indemnity defense settlement release discharge termination expiration
renewal extension suspension breach default failure delay event circumstance occurrence
change development improvement modification enhancement upgrade version copy counterpart
signature execution delivery performance completion acceptance rejection refund credit debit
deposit escrow reserve fund balance principal installment advance loan note bond debenture
collateral lien pledge mortgage guaranty guarantee insurance coverage premium deductible
beneficiary holder owner shareholder stockholder member partner director officer employee
agent representative contractor subcontractor vendor supplier distributor reseller customer
client user affiliate subsidiary successor assignee transferee designee nominee trustee
custodian administrator fiduciary advisor consultant auditor accountant attorney lender
borrower guarantor landlord tenant lessor lessee buyer seller purchaser manufacturer carrier
shipper warehouse depot terminal pipeline vessel vehicle aircraft railcar trailer truck
confidentiality disclosure information material document file correspondence communication
instruction direction request proposal offer quotation bid tender purchase sale transfer
assignment conveyance lease sublease tenancy occupancy possession access entry maintenance
repair replacement installation configuration integration implementation deployment migration
transition training documentation manual handbook catalog brochure revenue income earnings
profit margin dividend distribution allocation contribution capital equity share stock unit
option warrant day month quarter year period date deadline anniversary manner extent purpose
basis/bases respect reason cause effect result consequence authority agency regulator
commission court tribunal jurisdiction venue law statute regulation rule ordinance code permit
registration submission patent trademark copyright invention design drawing formula recipe
algorithm prototype sample component part assembly subassembly module shipment consignment
inventory merchandise container pallet package label carton substance emission contamination
remediation salary bonus compensation benefit vacation pension severance commission gratuity
allowance stipend per-diem reimbursement subsidy grant license-fee surcharge tariff duty tax
levy assessment penalty fine forfeiture rebate discount markdown markup allowance chargeback
credit-memo voucher receipt ticket token coupon milestone-payment earn-out holdback retention
retainer escrow-account lockbox sweep overdraft facility letter-of-credit acceptance draft
bill cheque wire remittance transaction closing signing recital preamble heading caption
section paragraph subsection sentence word phrase meaning interpretation construction
intention understanding negotiation arrangement undertaking commitment assurance indemnitee
indemnitor claimant respondent plaintiff defendant witness expert arbitrator mediator umpire
referee panel board council committee subcommittee chairperson secretary treasurer controller
comptroller manager supervisor inspector engineer architect surveyor appraiser valuer broker
dealer underwriter placement offering prospectus memorandum circular bulletin release-date
outage incident vulnerability breach-notice backup archive recovery continuity contingency
failover redundancy uptime downtime latency throughput capacity utilization allocation-key
threshold ceiling floor cap collar band tier bracket schedule-item line-item deliverable-item
work statement task activity function feature functionality specification-sheet datasheet
blueprint plat survey easement covenant-deed deed encumbrance encroachment setback zoning
variance entitlement subdivision parcel tract lot acreage frontage improvement-work fixture
furnishing appliance elevator escalator roof foundation structure wall corridor lobby
driveway parking garage signage landscaping utility electricity water sewer gas telephone
broadband spectrum frequency channel license-area coverage-area footprint region district
county municipality province state-agency township village borough parish harbor port
airport station depot-site mine quarry well field reservoir refinery plant mill factory
foundry laboratory clinic hospital pharmacy dispensary school campus library museum
theater arena stadium hotel restaurant store outlet franchise franchisee franchisor
concession concessionaire licensee-site kiosk showroom boutique marketplace exchange
clearinghouse depository registrar transfer-agent paying-agent calculation-agent
servicer sub-servicer originator obligor counterparty swap hedge derivative future forward
collar-agreement index benchmark spread coupon yield maturity tenor amortization accretion
prepayment redemption repurchase conversion exercise vesting forfeiture-event cliff
acceleration trigger covenant-test ratio leverage coverage-ratio liquidity solvency
insolvency bankruptcy receivership liquidation dissolution winding-up reorganization merger
consolidation amalgamation spin-off divestiture acquisition disposition investment
commitment-fee arrangement-fee agency-fee upfront-fee ticking-fee exit-fee
""")

_ADJECTIVES = _words("""
applicable reasonable commercial material adverse prior written express implied exclusive
non-exclusive perpetual irrevocable royalty-free worldwide limited unlimited sole entire
additional subsequent preceding foregoing following respective mutual reciprocal confidential
proprietary valid enforceable binding lawful unlawful effective due payable outstanding
accrued unpaid overdue late timely prompt customary ordinary usual annual quarterly monthly
weekly daily initial final interim preliminary definitive secondary primary ancillary
incidental consequential indirect direct special punitive exemplary actual estimated aggregate
total net gross maximum minimum fixed variable floating adjusted audited unaudited
consolidated financial operational technical administrative regulatory environmental fiscal
economic strategic competitive industrial residential agricultural municipal federal national
regional local foreign domestic international corporate individual personal joint several
separate independent dependent subordinate senior junior secured unsecured guaranteed insured
uninsured registered unregistered certified qualified disqualified eligible ineligible
authorized unauthorized permitted prohibited restricted unrestricted designated specified
identified described referenced attached incorporated contemplated intended anticipated
expected projected budgeted approved disputed undisputed contested uncontested pending
threatened existing future current former past present continuing recurring periodic
occasional temporary permanent provisional conditional unconditional absolute relative
partial complete full substantial insubstantial significant insignificant reasonable-best
diligent good-faith arm's-length fair equitable proportionate pro-rata ratable cumulative
noncumulative compounded simple default-rate base-rate prime short-term long-term medium-term
mid-year year-end quarter-end month-end calendar fiscal-year business working scheduled
unscheduled planned unplanned routine emergency critical major minor severe moderate
negligent grossly-negligent willful intentional fraudulent deceptive misleading accurate
inaccurate true correct complete-and-accurate up-to-date obsolete defective nonconforming
conforming compliant noncompliant hazardous toxic flammable perishable fragile bulk packaged
finished unfinished raw processed refined crude liquid solid gaseous electronic digital
physical tangible intangible movable immovable real-property leasehold freehold
fee-simple tenantable habitable vacant occupied furnished unfurnished commercial-grade
medical pharmaceutical clinical diagnostic therapeutic biological chemical mechanical
electrical structural civil marine aviation automotive rail logistics wholesale retail
online offline mobile cloud-based hosted on-premises licensed sublicensed assigned
transferred pledged mortgaged encumbered unencumbered free-and-clear marketable insurable
""")

_VERBS = _words("""
provide deliver perform pay notify indemnify defend hold maintain procure obtain
secure comply ensure execute acknowledge agree accept reject terminate extend renew assign
transfer grant license sublicense disclose use exercise waive amend modify supplement restate
represent warrant cure remedy submit approve review inspect audit calculate determine invoice
reimburse refund withhold deduct remit collect retain store destroy return furnish
prepare file record register deposit release discharge satisfy allocate distribute
contribute issue redeem repurchase convert exchange negotiate resolve settle mediate
arbitrate litigate enforce protect preserve safeguard restore replace repair install
configure integrate implement deploy migrate test validate verify certify document report
disclose-promptly publish announce communicate consult coordinate cooperate assist support
train supervise manage operate administer monitor track measure evaluate assess estimate
forecast budget schedule reschedule postpone accelerate defer suspend resume reinstate
revoke rescind cancel void annul ratify confirm affirm reaffirm authorize designate appoint
remove dismiss hire engage retain-counsel employ compensate promote transfer-title
lease sublease occupy vacate surrender repossess foreclose enforce-lien perfect
subordinate guarantee underwrite insure reinsure cover exclude limit cap restrict prohibit
permit allow enable facilitate expedite process handle ship transport store-goods
warehouse package label inspect-goods accept-goods reject-goods return-goods credit debit
charge bill invoice-customer pay-invoice dispute-invoice offset set net
aggregate consolidate combine merge acquire dispose divest spin sell buy
purchase order manufacture produce fabricate assemble source supply
distribute-product market advertise promote-product sell-product resell license-product
develop design engineer prototype commercialize launch withdraw recall replace-product
""")

_ADVERBS = _words("""
promptly reasonably solely exclusively jointly severally expressly immediately thereafter
hereunder thereunder herein therein hereby thereby hereof thereof duly properly timely
diligently faithfully materially substantially fully partially directly indirectly
automatically unconditionally irrevocably conclusively reasonably-promptly in-writing
separately collectively independently concurrently simultaneously subsequently previously
periodically annually quarterly-thereafter monthly-thereafter otherwise further additionally
accordingly consequently similarly respectively generally specifically primarily ordinarily
customarily commercially financially technically legally lawfully validly effectively
""")

_FIRST_NAMES = _words("""
Margaret Thomas Eleanor Daniel Priya Marcus Helena Joseph Rosalind Victor Adele Gregory
Naomi Walter Irene Samuel Lucinda Oliver Theresa Howard Beatrice Raymond Celeste Arthur
Diane Franklin Yvonne Lionel Catherine Harold Simone Edmund Vivian Russell Miriam Nathaniel
Judith Leonard Audrey Desmond Lorraine Patrick Gwendolyn Reginald Colette Vincent Sylvia
Bernard Rachel Martin Louisa Stanley Evelyn Clifford Nadia Douglas Teresa Gordon Anita
Wesley Marianne Elliot Deborah Curtis Ingrid Warren Renata Malcolm Julia Trevor Paulina
Kenneth Rhoda Dominic Sabrina Isaac Winifred Felix Cordelia Hugo Leonora Roland Esther
Jerome Florence Quentin Marguerite Cyrus Hannah Elias Frances Ambrose Delphine Rupert Agnes
Mei Arjun Sofia Kenji Amara Tomas Ines Rafael Leila Omar Chiara Anders Freya Mateo Yara
""")

# Syllables for coined surnames, company roots and places: English-sounding, invented.
_ROOT_HEADS = _words("""
Ash Bel Bright Cal Cam Car Cedar Clear Cor Crest Dal Dun East Elm Fair Fal Fern Glen Gold
Gran Green Hal Har Hazel High Holl Iron Kel Kings Lake Lang Lin Mar Mead Mill Mor North Oak
Pal Pen Pine Ran Red Ridge River Ros Sal Sand Silver Stan Stone Sum Thorn Tor Val Var West
Whit Wil Wind Wood Brack Brom Chal Dray Ever Fen Grey Hart Kes Lor Marl Nor Ore Quar Rath
Shel Tam Ulm Wex Yar Alder Birch Copper Dover Ember Frost Garn Heath Ivy Jun Knoll Larch
""")
_ROOT_TAILS = _words("""
brook bury by croft dale den field ford gate ham haven hill holm hurst land leigh ley mere
mont more port ridge shire stead ton vale view well wick wood worth ville stone bridge crest
moor side mark rock water march fell garth combe ness lyn row
""")
_COIN_ONSETS = _words("b br c cl d dr f g gr h j k l m n p pr qu r s st t tr v w z x")
_COIN_VOWELS = _words("a e i o u ai ea io ou y")
_COIN_CODAS = _words("n r l s x th nt rn st v m k")
_COIN_ENDS = _words("a ia ix on ar is os um en ex ara ium ence ant era ova ent")

_COMPANY_SUFFIXES = [
    "Inc.", "Corporation", "Holdings, Inc.", "LLC", "L.P.", "Partners LLC", "Group, Inc.",
    "Technologies, Inc.", "Industries, Inc.", "Capital LLC", "Systems, Inc.", "Therapeutics, Inc.",
    "Energy Corp.", "Logistics LLC", "Realty Trust", "Bancorp, Inc.", "Pharmaceuticals, Inc.",
    "Networks, Inc.", "Materials Corp.", "Foods, Inc.", "Resources Ltd.", "Media Group LLC",
]

_US_STATES = [*_words("""
Alabama Alaska Arizona Arkansas California Colorado Connecticut Delaware Florida Georgia Hawaii
Idaho Illinois Indiana Iowa Kansas Kentucky Louisiana Maine Maryland Massachusetts Michigan
Minnesota Mississippi Missouri Montana Nebraska Nevada Ohio Oklahoma Oregon Pennsylvania
Tennessee Texas Utah Vermont Virginia Washington Wisconsin Wyoming
"""), "New York", "New Jersey", "North Carolina", "South Carolina", "New Hampshire",
              "Rhode Island", "New Mexico", "West Virginia", "North Dakota", "South Dakota"]
_GOVERNING_STATES = ["Delaware", "New York", "California", "Texas", "Illinois", "Massachusetts",
                     "Nevada", "Washington", "Georgia", "Florida", "New Jersey", "Pennsylvania"]

_ENTITY_FORMS = ["corporation", "limited liability company", "limited partnership",
                 "statutory trust", "general partnership", "national banking association"]

_TITLES_OF_OFFICERS = [
    "Chief Executive Officer", "Chief Financial Officer", "President", "General Counsel",
    "Executive Vice President", "Senior Vice President, Operations", "Secretary", "Treasurer",
    "Managing Director", "Authorized Signatory", "Vice President, Finance", "Chief Operating Officer",
    "Manager", "Chief Legal Officer", "Director of Procurement", "Vice President and Controller",
]

_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"]

_NUMBER_WORDS = {
    2: "two", 3: "three", 5: "five", 7: "seven", 10: "ten", 14: "fourteen", 15: "fifteen",
    20: "twenty", 21: "twenty-one", 25: "twenty-five", 30: "thirty", 45: "forty-five",
    60: "sixty", 75: "seventy-five", 90: "ninety", 120: "one hundred twenty",
    180: "one hundred eighty", 270: "two hundred seventy", 365: "three hundred sixty-five",
}
_PERIOD_UNITS = ["days", "Business Days", "calendar days", "months", "weeks"]

_PREPOSITIONS = """
of|in|to|for|with|under|by|upon|on|from|against|between|among|within|without|after|before|
during|following|including|regarding|concerning|pursuant to|subject to|prior to|in respect of|
in connection with|with respect to|on behalf of|in lieu of|by reason of|for the benefit of|
in accordance with|notwithstanding|in excess of|as part of|in addition to|other than|
except for|arising from|relating to|attributable to|applicable to|consistent with|
""".replace("\n", "").strip("|").split("|")

_CONNECTIVES = [
    "provided that", "provided, however, that", "except that", "unless", "until", "so long as",
    "to the extent that", "whereupon", "in which case", "and", "or", "but", "so that",
    "in order that", "whether or not", "if", "when", "while", "as", "because",
]

# ---------------------------------------------------------------------------------------------
# Sentence frames. {X} names a bank; literal runs are kept short so frames do not themselves
# become shared 5-grams. Banks: NP/NPS noun phrases (singular/plural), N/NS nouns, A adjective,
# V verb, VPP past participle, ADV adverb, PREP preposition, CONJ connective, REF reference,
# PER period, AMT amount, PCT percent, DATE date, ORG company, PLACE city, PERSON person;
# per-document: P/Q party names, DT defined terms, AG the agreement's short name.
# ---------------------------------------------------------------------------------------------

_CONTRACT_FRAMES = """
{P} shall {ADV} {V} {NP} {PREP} {NP}.
{P} shall {V} {NPS} {PREP} {DT} within {PER}.
Except as set forth in {REF}, {P} shall not {V} {NP} without {Q}'s {A} consent.
{Q} may {V} {NP} at any time {PREP} {NPS} {CONJ} {P} has {VPP} {NP}.
{NP} shall be {VPP} {PREP} {NP} and {ADV} {VPP} to {Q}.
Each {N} {VPP} under {AG} shall {V} {NP} {PREP} {DT}.
If {P} fails to {V} {NP}, {Q} may {V} {NPS} upon {PER} notice.
{P} acknowledges that {NPS} are {A} and {ADV} {VPP} {PREP} {NP}.
The {A} {N} of {DT} shall not exceed {AMT} in {NP}.
{P} shall pay {Q} {AMT} {PREP} {NP}, {CONJ} {NP} is {VPP}.
All {NPS} {VPP} by {P} shall {V} {PREP} {NP} {PREP} {DT}.
Within {PER} after {NP}, {P} will {V} {NP} to {Q}.
{Q} shall have the right to {V} {NPS} {PREP} {NP}.
Notwithstanding {REF}, {NP} shall {ADV} {V} {NPS}.
{P} represents that {NP} has been {ADV} {VPP} {PREP} {NPS}.
Any {A} {N} {PREP} {DT} shall be {VPP} as {A} {NS}.
{P} will use {A} efforts to {V} {NP} {PREP} {NP}.
{NP} shall bear interest at {PCT} per annum from {DATE}.
{Q} shall not be liable for {NPS} {PREP} {NP} {CONJ} {P} {V}s {NP}.
{P} may, at its option, {V} {NP} or {V} {NPS}.
The parties shall {ADV} {V} {NPS} {PREP} {NP}.
Upon {NP}, {P} shall {V} all {NS} {PREP} {DT}.
{DT} shall include {NPS}, {NPS} and {NPS}.
In no event shall {P} {V} {NP} {PREP} {NP}.
{P} shall keep {A} {NS} of {NPS} for {PER}.
{Q} may {V} {NP}, {PREP} {NP}, by written notice to {P}.
Subject to {REF}, {P} hereby {V}s to {Q} {NP} {PREP} {DT}.
{NPS} {PREP} {NP} shall be {VPP} {ADV} by {P}.
{P} shall reimburse {Q} for {A} {NS} {VPP} {PREP} {NP}, not to exceed {AMT}.
Such {N} shall be {A} and {VPP} {PREP} {PLACE}.
{P} shall {V} {NP} no later than {DATE}.
{P} shall deliver to {Q} {NP} {VPP} by {PERSON}.
{NP} will be {VPP} {PREP} {NPS} in {PLACE}.
To the extent {NP} is {VPP}, {P} shall {V} {NP}.
{Q} shall {V} {NP} at {P}'s {A} expense.
{P} shall provide {NPS} to {ORG} {PREP} {NP}.
{P} agrees to {V} {NPS} {PREP} {DT} {ADV}.
{NPS} may be {VPP} only {PREP} {NP}.
The {N} fee for {DT} is {AMT}, payable {PREP} {NP}.
{P} shall cause {NPS} to {V} {NP}.
If {NP} is {VPP}, {Q} shall {ADV} {V} {NP}.
{P} is {A} to {V} {NPS} {PREP} {DT}.
{P} waives {NPS} {PREP} {NP}, except {PREP} {NP}.
{P} shall not, and shall cause its {NS} not to, {V} {NP}.
Any {N} by {P} {PREP} {NP} constitutes {NP} {PREP} {REF}.
{NP} shall be {VPP} by {PERSON}, or such other {N} as {Q} designates.
{DT} means {NP} {PREP} {NPS}, {CONJ} {NP}.
{P} shall maintain {A} {N} coverage of at least {AMT} for {NPS}.
During {NP}, {P} shall {V} {NPS} and {V} {NP}.
{Q} may audit {NPS} {PREP} {NP} once in any {N}.
{NP} and {NP} shall be {VPP} {PREP} {REF}.
{P} has {VPP} {NPS} {PREP} {NP} since {DATE}.
For {NP}, {P} shall {V} {PCT} of {NP}.
{P} certifies that {NPS} {PREP} {DT} are {A}.
Each of {P} and {Q} shall {V} {NP} {PREP} {NPS}.
{NPS} under {REF} survive {NP} for {PER}.
""".strip().splitlines()

_RECITAL_FRAMES = """
WHEREAS, {P} is engaged in {NP} {PREP} {NPS};
WHEREAS, {Q} desires to {V} {NPS} {PREP} {DT};
WHEREAS, {P} and {Q} have {VPP} {NP} dated {DATE};
WHEREAS, {Q} owns {A} {NS} {PREP} {PLACE};
WHEREAS, {P} wishes to {V} {NP} on the terms set forth in {AG};
""".strip().splitlines()

_DEFINITION_FRAMES = """
"{TERM}" means {NP} {PREP} {NPS}, {CONJ} {NP}.
"{TERM}" means any {N} {VPP} by {P} {PREP} {NP}.
"{TERM}" has the meaning given in {REF}.
"{TERM}" means {NPS} of {P} {VPP} {PREP} {DT}.
"{TERM}" means {AMT}, as {VPP} {PREP} {NP}.
"{TERM}" means {NP} {PREP} {PLACE} {PREP} {NPS}.
""".strip().splitlines()

_FILING_PROSE_FRAMES = """
Our {NS} depend on {NP} {PREP} {NPS}.
If we fail to {V} {NP}, our {NS} could be {ADV} {VPP}.
We may be unable to {V} {NPS} {PREP} {NP}.
{CO} {V}s {NPS} to {A} {NS} in {PLACE}.
Net {N} increased {AMT}, or {PCT}, to {AMT} for {FY}.
Net {N} decreased {AMT}, or {PCT}, compared to {FY}.
The increase in {NP} was {ADV} due to {NPS} {PREP} {NP}.
The decrease reflects {A} {NS} {PREP} {SEG}, {CONJ} {NPS}.
We {V} {NP} {PREP} {NPS} during {FY}.
Changes in {NPS} could {ADV} {V} our {A} {N}.
{SEG} revenue was {AMT} in {FY}, {PCT} of total revenue.
We recorded {A} {N} of {AMT} {PREP} {NP}.
As of {DATE}, we had {AMT} of {A} {NS} outstanding.
Our {A} {NS} are subject to {NPS} {PREP} {NP}.
{PRODUCT} accounted for {PCT} of {SEG} sales.
We expect {NPS} to {V} {PREP} {NP} in {FY}.
Competition for {NPS} in {PLACE} is {A} and {A}.
We rely on {ORG} for {NPS} {PREP} {PRODUCT}.
Any {A} {N} of {NP} may {V} {NPS}.
Management {V}s {NPS} {PREP} {NP} each {N}.
The {A} {N} of {AMT} relates to {NPS} {PREP} {SEG}.
We cannot assure you that {NPS} will {V} {NP}.
Our ability to {V} {NPS} depends on {NP}.
Cash provided by {NP} was {AMT} in {FY}.
We believe {NPS} are {A} to {V} {NP}.
{CO} {VPP} {NP} with {ORG} on {DATE}.
We {ADV} {V} {NPS} using {NP} {PREP} {NPS}.
Any {A} {N} in {NPS} would reduce {NP} by {AMT}.
Our {N} {PREP} {PRODUCT} may be {VPP} by {NPS}.
We operate {NUMBER} {NS} across {PLACE} and {PLACE}.
{NPS} are {VPP} at {A} {N} {PREP} {NP}.
{SEG} operating income was {AMT}, up {PCT} from {FY}.
We have {VPP} {NPS} {PREP} {NP} since {DATE}.
{ORG} and {ORG} compete with us in {NPS}.
Regulators in {PLACE} may {V} {NPS} {PREP} {NP}.
These {NS} involve {A} {NS} and {A} {NS}.
""".strip().splitlines()

_RISK_HEADING_FRAMES = """
We may not be able to {V} {NPS}, which could {V} our {NS}.
Our {NS} are subject to {A} {NS} {PREP} {NP}.
{NPS} could {ADV} {V} our {A} {N}.
We depend on {ORG} for {A} {NS}.
Changes in {NPS} {PREP} {PLACE} may {V} our {NS}.
If {NPS} {V}, our {N} of {NPS} could decline.
""".strip().splitlines()

_FINANCIAL_LINES = """
Net revenues|Cost of revenues|Gross profit|Research and development|Sales and marketing|
General and administrative|Restructuring charges|Impairment of goodwill|Operating income|
Interest expense, net|Other income (expense)|Income before income taxes|Provision for income taxes|
Net income|Basic earnings per share|Diluted earnings per share|Weighted average shares|
Cash and cash equivalents|Short-term investments|Accounts receivable, net|Inventories|
Prepaid expenses|Total current assets|Property and equipment, net|Operating lease assets|
Goodwill|Intangible assets, net|Deferred tax assets|Other assets|Total assets|Accounts payable|
Accrued liabilities|Deferred revenue|Current portion of long-term debt|Total current liabilities|
Long-term debt|Operating lease liabilities|Other long-term liabilities|Total liabilities|
Common stock|Additional paid-in capital|Retained earnings|Accumulated other comprehensive loss|
Total stockholders' equity|Depreciation and amortization|Stock-based compensation|
Capital expenditures|Free cash flow|Net cash from operating activities|
Net cash used in investing activities|Net cash from financing activities|Backlog|
Segment operating margin|Adjusted EBITDA|Dividends declared per share|Repurchases of common stock
""".replace("\n", "").split("|")

# ---------------------------------------------------------------------------------------------
# Shared boilerplate, deliberately repeated across contracts with small variations.
# {A}/{B} party names, {AG} the agreement's name, {ST} a state, {CITY} a city, {D} a period.
# ---------------------------------------------------------------------------------------------

_BOILERPLATE: dict[str, list[str]] = {
    "Governing Law": [
        "{AG} [shall|will] be governed by and construed in accordance with the laws of the State of {ST}, without giving effect to any choice of law or conflict of law [rules|provisions] that would cause the application of the laws of any [other jurisdiction|jurisdiction other than the State of {ST}].",
        "{AG} and all [claims|disputes] arising out of or relating to it shall be governed by the [laws|internal laws] of the State of {ST}, without regard to its conflict of laws principles.",
        "This {AGN} shall be governed by, and interpreted in accordance with, the internal laws of the State of {ST} applicable to [agreements|contracts] made and to be performed entirely within that State[, without reference to its choice of law rules|].",
    ],
    "Notices": [
        "All notices under {AG} shall be in writing and shall be deemed given when delivered personally, [one Business Day|one business day|two Business Days] after deposit with a nationally recognized overnight courier, or [three|five] days after mailing by certified [mail|or registered mail], return receipt requested, to the address of the receiving [party|Party] set forth below its signature or such other address as that party may designate by notice.",
        "Any notice required or permitted by {AG} shall be in writing and delivered by hand, by overnight courier or by email with confirmation of [transmission|receipt], addressed to the [party|Party] at the address set out [in this Section|below its signature] or at such other address as the party may specify by notice given in accordance with this Section.",
        "Notices to {A} and to {B} shall be sent to the [addresses|respective addresses] shown on the signature page of {AG}[, with a copy to counsel|], and shall be effective upon receipt or upon refusal of delivery.",
    ],
    "Severability": [
        "If any provision of {AG} is held invalid, illegal or unenforceable in any respect, such provision shall be [limited or eliminated|reformed] to the minimum extent necessary, and the remaining provisions shall continue in full force and effect.",
        "If any term or provision of {AG} is found by a court of competent jurisdiction to be invalid or unenforceable, the remainder of {AG} shall not be affected[ thereby|], and the invalid provision shall be replaced by a valid provision that most closely [reflects|approximates] the original intent of the [parties|Parties].",
        "The invalidity or unenforceability of any provision of {AG} shall not affect the validity or enforceability of any other provision[ hereof|], each of which shall remain in full force and effect.",
    ],
    "Counterparts": [
        "{AG} may be executed in [counterparts|two or more counterparts], each of which shall be deemed an original and all of which together shall constitute one and the same instrument. Signatures delivered by [facsimile or electronic transmission|facsimile, PDF or other electronic means] shall be effective as originals.",
        "{AG} may be executed in any number of counterparts, each of which when so executed [shall|will] be an original, and all of which taken together shall constitute one [agreement|instrument]. Delivery of an executed signature page by electronic means shall be as effective as delivery of a manually executed counterpart.",
    ],
    "Entire Agreement": [
        "{AG}, together with the [exhibits and schedules|schedules and exhibits] attached hereto, constitutes the entire agreement between the parties with respect to its subject matter and supersedes all prior and contemporaneous agreements, proposals and understandings, whether written or oral.",
        "{AG} sets forth the entire understanding of the [parties|Parties] relating to [its|the] subject matter and supersedes all prior negotiations, understandings and agreements between them, whether written or oral, relating to such subject matter.",
        "{AG} and the documents referred to herein constitute the entire agreement [among|between] the parties and supersede any prior understandings, agreements or representations by or among the parties, written or oral, to the extent they relate in any way to the subject matter hereof.",
    ],
    "Amendment and Waiver": [
        "No amendment of {AG} shall be [effective|binding] unless it is in writing and signed by [both parties|each Party]. No waiver of any provision shall be effective unless in writing, and no failure or delay in exercising any right shall operate as a waiver thereof.",
        "{AG} may be amended, modified or supplemented only by a written instrument executed by [each of the parties|all of the Parties|the Parties]. The failure of [either party|a Party] to enforce any provision of {AG} shall not be construed as a waiver of that provision or of the right to enforce it at a later time.",
    ],
    "Assignment": [
        "Neither party may assign or transfer {AG} or any of its rights or obligations hereunder without the prior written consent of the other party, except that [either party|{A}] may assign {AG} to a successor in connection with a merger, acquisition or sale of all or substantially all of its [assets|assets or business]. Any attempted assignment in violation of this Section shall be [void|null and void].",
        "{AG} shall be binding upon and inure to the benefit of the [parties|Parties hereto] and their respective successors and permitted assigns. {B} may not assign {AG} without the prior written consent of {A}, which consent shall not be unreasonably [withheld|withheld, conditioned or delayed].",
    ],
    "Force Majeure": [
        "Neither party shall be liable for any failure or delay in [performance|performing its obligations] under {AG} to the extent caused by events beyond its reasonable control, including [acts of God, fire, flood|fire, flood, earthquake], war, terrorism, labor disputes, epidemics or governmental action, provided that the affected party gives prompt notice and uses reasonable efforts to resume performance.",
        "A party shall be excused from performance of its obligations under {AG} for so long as such performance is prevented by a Force Majeure Event, provided that such party [notifies|gives written notice to] the other party within {D} after the occurrence of the Force Majeure Event and uses commercially reasonable efforts to mitigate its effects.",
    ],
    "Relationship of the Parties": [
        "The parties are independent contractors. Nothing in {AG} shall be [construed|deemed] to create a partnership, joint venture, agency or [employment|fiduciary] relationship between the parties, and neither party has authority to bind the other.",
        "Nothing contained in {AG} shall be deemed to constitute either party as the [agent, partner or joint venturer|partner, agent or legal representative] of the other, and neither party shall hold itself out as having authority to bind the other party.",
    ],
    "Headings": [
        "The headings in {AG} are for [convenience of reference|convenience] only and shall not affect its interpretation.",
        "Section and article headings contained in {AG} are for reference purposes only and shall not [affect in any way|in any way affect] the meaning or interpretation of {AG}.",
    ],
    "Further Assurances": [
        "Each party shall execute and deliver such further instruments and take such further actions as the other party may reasonably [request|require] to carry out the intent and purposes of {AG}.",
        "From time to time [after the date hereof|following the Closing|hereafter], each party shall, without further consideration, execute such additional documents and take such further actions as may be reasonably necessary to consummate the transactions contemplated by {AG}.",
    ],
    "No Third-Party Beneficiaries": [
        "{AG} is for the sole benefit of the parties and their respective successors and permitted assigns, and nothing herein[, express or implied,|] shall confer upon any other person any legal or equitable right, benefit or remedy of any nature.",
        "Except as [expressly provided herein|otherwise set forth in {AG}], nothing in {AG} is intended to confer any rights or remedies upon any person other than the parties and their respective successors and permitted assigns.",
    ],
    "Jurisdiction": [
        "Each party irrevocably submits to the exclusive jurisdiction of the [state and federal courts|federal and state courts|courts] located in {CITY}, {ST}, for any action arising out of or relating to {AG}, and waives any objection to venue in such courts.",
        "Any legal suit, action or proceeding arising out of {AG} shall be instituted exclusively in the [courts|state or federal courts] of the State of {ST} located in {CITY}, and each party irrevocably submits to the jurisdiction of such courts in any such suit, action or proceeding.",
    ],
    "Waiver of Jury Trial": [
        "EACH PARTY HEREBY IRREVOCABLY WAIVES, TO THE FULLEST EXTENT PERMITTED BY APPLICABLE LAW, ANY RIGHT IT MAY HAVE TO A TRIAL BY JURY IN ANY [LEGAL PROCEEDING|ACTION OR PROCEEDING] DIRECTLY OR INDIRECTLY ARISING OUT OF OR RELATING TO {AGU}.",
        "EACH OF THE PARTIES [KNOWINGLY AND VOLUNTARILY|KNOWINGLY, VOLUNTARILY AND INTENTIONALLY] WAIVES ANY RIGHT TO A JURY TRIAL IN ANY ACTION ARISING UNDER OR IN CONNECTION WITH {AGU} OR THE TRANSACTIONS CONTEMPLATED HEREBY.",
    ],
    "Expenses": [
        "Except as otherwise expressly provided in {AG}, each party shall bear its own costs and expenses, including fees [of counsel and accountants|and disbursements of counsel], incurred in connection with the negotiation and performance of {AG}.",
        "All costs and expenses incurred in connection with {AG} shall be paid by the [party|Party] incurring such [costs and expenses|expenses], whether or not the transactions contemplated hereby are consummated.",
    ],
    "Survival": [
        "Any provision of {AG} that by its nature is intended to survive termination or expiration, including provisions relating to [confidentiality, indemnification, limitation of liability and payment obligations|payment, confidentiality and indemnification], shall survive any termination or expiration of {AG}.",
        "The [rights and obligations|obligations] of the parties under the Sections of {AG} relating to confidentiality, indemnification and limitation of liability shall survive the termination or expiration of {AG} for a period of {D}.",
    ],
    "Confidentiality": [
        "Each party shall hold the Confidential Information of the other party in strict confidence, shall not disclose it to any third party except to its [employees and advisors|employees, agents and advisors|Representatives] who have a need to know and are bound by obligations of confidentiality, and shall use it solely for the purposes of {AG}.",
        "The receiving party shall protect the Confidential Information of the disclosing party using at least the same degree of care [it uses|that it uses] to protect its own confidential information of like kind, but in no event less than reasonable care.",
    ],
    "Limitation of Liability": [
        "IN NO EVENT SHALL EITHER PARTY BE LIABLE TO THE OTHER [PARTY|] FOR ANY INDIRECT, INCIDENTAL, CONSEQUENTIAL, SPECIAL OR PUNITIVE DAMAGES, INCLUDING [LOST PROFITS|LOSS OF PROFITS OR REVENUE], ARISING OUT OF OR RELATING TO {AGU}, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGES.",
        "EXCEPT FOR BREACHES OF CONFIDENTIALITY AND INDEMNIFICATION OBLIGATIONS, NEITHER PARTY'S AGGREGATE LIABILITY UNDER {AGU} SHALL EXCEED THE FEES PAID OR PAYABLE HEREUNDER DURING THE [TWELVE|SIX] MONTHS PRECEDING THE EVENT GIVING RISE TO THE CLAIM.",
    ],
}

# Opening and closing formulas: nearly every contract has one of each.
_PREAMBLE = [
    'This {TITLE} (this "{AGN}") is entered into as of {DATE} (the "Effective Date"), by and between {AF}, {AD} ("{A}"), and {BF}, {BD} ("{B}").',
    'This {TITLE} (the "{AGN}"), dated as of {DATE} (the "Effective Date"), is made by and between {AF}, {AD} ("{A}"), and {BF}, {BD} ("{B}").',
    '{TITLE_U}, dated {DATE}, between {AF}, {AD} (hereinafter "{A}"), and {BF}, {BD} (hereinafter "{B}"; this {TITLE}, the "{AGN}", effective as of such date, the "Effective Date").',
]
_PARTIES_SENTENCE = [
    ' {A} and {B} are each referred to herein as a "Party" and together as the "Parties."',
    ' {A} and {B} may be referred to individually as a "Party" and collectively as the "Parties."',
    "",
]
_CONSIDERATION = [
    "NOW, THEREFORE, in consideration of the mutual covenants and agreements set forth herein, and for other good and valuable consideration, the receipt and sufficiency of which are hereby acknowledged, the [Parties|parties] [agree|hereby agree] as follows:",
    "NOW, THEREFORE, in consideration of the premises and the [mutual promises|respective representations, warranties and covenants] contained herein, the parties hereto, intending to be legally bound, hereby agree as follows:",
    "In consideration of the foregoing and of the mutual [undertakings|agreements] below, the Parties agree as follows:",
]
_WITNESS = [
    "IN WITNESS WHEREOF, the Parties have caused this {AGN} to be executed by their duly authorized representatives as of the Effective Date.",
    "IN WITNESS WHEREOF, the parties hereto have executed this {AGN} as of the date first written above.",
    "The Parties have signed this {AGN} [on the dates set forth below|as of the Effective Date], each by a duly authorized [officer|signatory].",
]

_SHARED_DEFINITIONS = [
    '"Business Day" means any day other than a Saturday, a Sunday or a day on which [commercial banks|banks] in {CITY} are authorized or required by law to [close|remain closed].',
    '"Affiliate" means, with respect to any [person|Person], any other [person|Person] that directly or indirectly[, through one or more intermediaries,|] controls, is controlled by or is under common control with such [person|Person].',
    '"Person" means any individual, corporation, partnership, [limited liability company|firm], trust, association, governmental authority or other entity.',
    '"Law" means any [statute, law, ordinance, regulation, rule, code|law, statute, rule, regulation, ordinance], order, judgment or decree of any governmental authority.',
    '"Confidential Information" means all non-public information disclosed by a party to the other party, whether orally or in writing, that is [designated as confidential|marked or identified as confidential] or that reasonably should be understood to be confidential[ given the nature of the information|].',
]

_FILING_BOILERPLATE = [
    "This Annual Report on Form 10-K contains forward-looking statements within the meaning of Section 27A of the Securities Act of 1933, as amended, and Section 21E of the Securities Exchange Act of 1934, as amended. Words such as \"anticipate,\" \"believe,\" \"estimate,\" \"expect,\" \"intend,\" \"may,\" \"plan,\" \"project,\" \"should\" and \"will\" identify forward-looking statements, which are subject to risks and uncertainties that could cause actual results to differ materially.",
    "Our management, with the participation of our principal executive officer and principal financial officer, evaluated the effectiveness of our disclosure controls and procedures as of the end of the period covered by this report. Based on that evaluation, they concluded that our disclosure controls and procedures were effective at the reasonable assurance level.",
    "Management is responsible for establishing and maintaining adequate internal control over financial reporting, as defined in Rules 13a-15(f) and 15d-15(f) under the Exchange Act. Because of its inherent limitations, internal control over financial reporting may not prevent or detect misstatements.",
    "The information required by this Item is incorporated by reference to our definitive Proxy Statement for the annual meeting of stockholders, which will be filed with the Securities and Exchange Commission within 120 days after the end of the fiscal year covered by this report.",
    "Pursuant to the requirements of Section 13 or 15(d) of the Securities Exchange Act of 1934, the registrant has duly caused this report to be signed on its behalf by the undersigned, thereunto duly authorized.",
]

_CERTIFICATION = """I, {PERSON}, certify that:

1. I have reviewed this Annual Report on Form 10-K of {CO};

2. Based on my knowledge, this report does not contain any untrue statement of a material fact or omit to state a material fact necessary to make the statements made, in light of the circumstances under which such statements were made, not misleading with respect to the period covered by this report;

3. Based on my knowledge, the financial statements, and other financial information included in this report, fairly present in all material respects the financial condition, results of operations and cash flows of the registrant as of, and for, the periods presented in this report.

Date: {DATE}

/s/ {PERSON}
{PERSON}
{TITLE}"""

_KINDS: dict[str, dict[str, list]] = {
    "services": {
        "titles": ["Master Services Agreement", "Professional Services Agreement", "Managed Services Agreement", "Services Agreement"],
        "roles": [("Provider", "Customer"), ("Contractor", "Client"), ("Service Provider", "Company")],
        "articles": ["Services", "Statements of Work", "Service Levels", "Fees and Payment", "Personnel", "Acceptance", "Term and Termination", "Warranties", "Indemnification", "Insurance"],
    },
    "license": {
        "titles": ["License Agreement", "Software License Agreement", "Patent License Agreement", "Trademark License Agreement", "Exclusive License Agreement"],
        "roles": [("Licensor", "Licensee")],
        "articles": ["Grant of License", "Royalties", "Reports and Records", "Intellectual Property", "Patent Prosecution", "Infringement", "Term and Termination", "Representations and Warranties", "Indemnification"],
    },
    "supply": {
        "titles": ["Supply Agreement", "Manufacturing and Supply Agreement", "Purchase and Supply Agreement"],
        "roles": [("Supplier", "Buyer"), ("Manufacturer", "Purchaser")],
        "articles": ["Supply of Products", "Forecasts and Orders", "Price and Payment", "Delivery", "Quality", "Product Warranty", "Recalls", "Term and Termination", "Indemnification"],
    },
    "employment": {
        "titles": ["Employment Agreement", "Executive Employment Agreement", "Amended and Restated Employment Agreement"],
        "roles": [("Company", "Executive"), ("Employer", "Employee")],
        "articles": ["Employment and Duties", "Compensation", "Benefits", "Equity Awards", "Termination of Employment", "Severance", "Restrictive Covenants", "Proprietary Information"],
    },
    "credit": {
        "titles": ["Credit Agreement", "Revolving Credit Agreement", "Term Loan Agreement", "Loan and Security Agreement"],
        "roles": [("Borrower", "Lender"), ("Borrower", "Administrative Agent")],
        "articles": ["Amount and Terms of Credit", "Interest and Fees", "Conditions Precedent", "Affirmative Covenants", "Negative Covenants", "Financial Covenants", "Events of Default", "Remedies", "The Agent"],
    },
    "lease": {
        "titles": ["Lease Agreement", "Office Lease", "Industrial Lease", "Sublease Agreement"],
        "roles": [("Landlord", "Tenant"), ("Lessor", "Lessee"), ("Sublandlord", "Subtenant")],
        "articles": ["Premises", "Term", "Rent", "Operating Expenses", "Use", "Alterations", "Repairs and Maintenance", "Insurance", "Casualty", "Condemnation", "Default"],
    },
    "consulting": {
        "titles": ["Consulting Agreement", "Advisory Agreement", "Independent Contractor Agreement"],
        "roles": [("Company", "Consultant"), ("Client", "Advisor")],
        "articles": ["Engagement", "Consulting Services", "Compensation", "Expenses", "Work Product", "Non-Solicitation", "Term and Termination"],
    },
    "distribution": {
        "titles": ["Distribution Agreement", "Exclusive Distribution Agreement", "Reseller Agreement"],
        "roles": [("Supplier", "Distributor"), ("Company", "Reseller")],
        "articles": ["Appointment", "Territory", "Minimum Purchase Requirements", "Orders", "Pricing", "Marketing", "Trademarks", "Term and Termination"],
    },
    "purchase": {
        "titles": ["Asset Purchase Agreement", "Stock Purchase Agreement", "Membership Interest Purchase Agreement"],
        "roles": [("Seller", "Buyer"), ("Sellers", "Purchaser")],
        "articles": ["Purchase and Sale", "Purchase Price", "Closing", "Representations and Warranties of Seller", "Representations and Warranties of Buyer", "Covenants", "Conditions to Closing", "Indemnification", "Termination"],
    },
    "merger": {
        "titles": ["Agreement and Plan of Merger", "Merger Agreement"],
        "roles": [("Parent", "Company"), ("Acquiror", "Target")],
        "articles": ["The Merger", "Effect on Capital Stock", "Representations and Warranties of the Company", "Representations and Warranties of Parent", "Conduct of Business", "Additional Agreements", "Conditions", "Termination"],
    },
    "security": {
        "titles": ["Security Agreement", "Pledge and Security Agreement", "Guarantee and Collateral Agreement"],
        "roles": [("Grantor", "Secured Party"), ("Pledgor", "Collateral Agent")],
        "articles": ["Grant of Security Interest", "Perfection", "Representations and Warranties", "Covenants", "Remedies", "Application of Proceeds"],
    },
    "settlement": {
        "titles": ["Settlement Agreement", "Settlement and Release Agreement", "Separation and Release Agreement"],
        "roles": [("Claimant", "Respondent"), ("Plaintiff", "Defendant")],
        "articles": ["Settlement Payment", "Releases", "Dismissal", "No Admission", "Non-Disparagement", "Cooperation"],
    },
}

CONTRACT_KINDS: tuple[str, ...] = tuple(_KINDS)
"""Kinds accepted by :func:`contract` (any other value raises ``UsageError``)."""

_GENERIC_ARTICLES = ["Confidentiality", "Compliance with Laws", "Records and Audit", "Dispute Resolution",
                     "Data Protection", "Insurance", "Taxes", "Transition Assistance", "Governance",
                     "Reporting", "Security", "Subcontracting", "Non-Competition", "Publicity"]

_ITEMS_10K = [
    ("PART I", "Item 1.", "Business", 0.12),
    ("", "Item 1A.", "Risk Factors", 0.26),
    ("", "Item 1B.", "Unresolved Staff Comments", 0.0),
    ("", "Item 2.", "Properties", 0.02),
    ("", "Item 3.", "Legal Proceedings", 0.03),
    ("", "Item 4.", "Mine Safety Disclosures", 0.0),
    ("PART II", "Item 5.", "Market for Registrant's Common Equity, Related Stockholder Matters and Issuer Purchases of Equity Securities", 0.03),
    ("", "Item 7.", "Management's Discussion and Analysis of Financial Condition and Results of Operations", 0.24),
    ("", "Item 7A.", "Quantitative and Qualitative Disclosures About Market Risk", 0.03),
    ("", "Item 8.", "Financial Statements and Supplementary Data", 0.22),
    ("", "Item 9.", "Changes in and Disagreements with Accountants on Accounting and Financial Disclosure", 0.0),
    ("", "Item 9A.", "Controls and Procedures", 0.0),
    ("", "Item 9B.", "Other Information", 0.0),
    ("PART III", "Item 10.", "Directors, Executive Officers and Corporate Governance", 0.0),
    ("", "Item 11.", "Executive Compensation", 0.0),
    ("", "Item 12.", "Security Ownership of Certain Beneficial Owners and Management", 0.0),
    ("", "Item 13.", "Certain Relationships and Related Transactions, and Director Independence", 0.0),
    ("", "Item 14.", "Principal Accountant Fees and Services", 0.02),
    ("PART IV", "Item 15.", "Exhibits and Financial Statement Schedules", 0.0),
]

# ---------------------------------------------------------------------------------------------
# Banks, built once per process from a fixed seed.
# ---------------------------------------------------------------------------------------------


def _plural(noun: str) -> str:
    if noun.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


_DOUBLE_FINAL = frozenset({"submit", "remit", "permit", "ship", "transfer", "commit", "cap"})
_IRREGULAR_PAST = {"pay": "paid", "hold": "held", "withhold": "withheld", "hire": "hired",
                   "set": "set", "sell": "sold", "buy": "bought", "spin": "spun", "lease": "leased",
                   "allow": "allowed", "acquire": "acquired", "order": "ordered", "supply": "supplied",
                   "net": "netted", "offset": "offset", "assign": "assigned", "grant": "granted", "deposit": "deposited"}


def _past(verb: str) -> str:
    if verb in _IRREGULAR_PAST:
        return _IRREGULAR_PAST[verb]
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ied"
    if verb in _DOUBLE_FINAL:
        return verb + verb[-1] + "ed"
    return verb + "ed"


def _third_person(verb: str) -> str:
    if verb.endswith(("s", "x", "z", "ch", "sh")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


_KEEP_HYPHEN = frozenset(_words("""
non-exclusive royalty-free good-faith arm's-length pro-rata short-term long-term medium-term
mid-year year-end quarter-end month-end cloud-based on-premises up-to-date commercial-grade
fee-simple free-and-clear earn-out spin-off winding-up per-diem sub-servicer non-solicitation
"""))


def _split_forms(words: list[str], rule: Callable[[str], str], on_last: bool) -> tuple[list[str], list[str]]:
    """Base forms and inflected forms (``"a/b"`` gives b explicitly).

    Hyphenated entries are written as separate words unless listed in ``_KEEP_HYPHEN``; the
    inflection applies to the last word (nouns) or the first (verbs).
    """
    base: list[str] = []
    other: list[str] = []
    for w in dict.fromkeys(words):
        a, _, b = w.partition("/")
        head = a if a in _KEEP_HYPHEN else a.replace("-", " ")
        base.append(head)
        if b:
            other.append(b)
        elif on_last:
            *rest, last = head.split(" ")
            other.append(" ".join([*rest, rule(last)]))
        else:
            first, *rest = head.split(" ")
            other.append(" ".join([rule(first), *rest]))
    return base, other


# Coined names are random syllables; these fragments would make some of them read as slurs.
_UNWANTED_FRAGMENTS = ("sex", "cunt", "jew", "fag", "nig", "tit", "cock", "dick", "rape", "porn",
                       "anal", "nazi", "slut", "shit", "piss", "fuck", "cum", "poo", "kkk")


def _coin(rng: random.Random) -> str:
    r = rng.random
    s = _COIN_ONSETS[int(r() * len(_COIN_ONSETS))] + _COIN_VOWELS[int(r() * len(_COIN_VOWELS))]
    if r() < 0.7:
        s += _COIN_CODAS[int(r() * len(_COIN_CODAS))]
    s += _COIN_ONSETS[int(r() * len(_COIN_ONSETS))] + _COIN_ENDS[int(r() * len(_COIN_ENDS))]
    return s.capitalize()


def _money(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.35:
        v = int(rng.random() * 990 + 10) * 1000
    elif r < 0.7:
        v = int(rng.random() * 99_000_000 + 100_000)
    else:
        v = int(rng.random() * 98_000 + 1_000)
    return f"${v:,}"


def _date(rng: random.Random, lo: int = 2008, hi: int = 2024) -> str:
    return f"{pick(rng, _MONTHS)} {int(rng.random() * 28) + 1}, {lo + int(rng.random() * (hi - lo + 1))}"


def _period(rng: random.Random) -> str:
    n = pick(rng, list(_NUMBER_WORDS))
    unit = pick(rng, _PERIOD_UNITS)
    if unit in ("months", "weeks") and n > 60:
        n = 12
        return f"twelve (12) {unit}"
    return f"{_NUMBER_WORDS[n]} ({n}) {unit}"


def _ref(rng: random.Random) -> str:
    r = rng.random()
    a = int(rng.random() * 14) + 1
    b = int(rng.random() * 12) + 1
    if r < 0.55:
        return f"Section {a}.{b}"
    if r < 0.7:
        return f"Section {a}.{b}({'abcdefgh'[int(rng.random() * 8)]})"
    if r < 0.82:
        return f"Article {a}"
    if r < 0.92:
        return f"Exhibit {'ABCDEFGH'[int(rng.random() * 8)]}"
    return f"Schedule {a}.{b}"


class _Banks:
    """Every global pool the frames draw from."""

    def __init__(self) -> None:
        rng = random.Random(0xC0FFEE)
        self.N, self.NS = _split_forms(_NOUNS, _plural, on_last=True)
        self.V, self.VPP = _split_forms(_VERBS, _past, on_last=False)
        self.VS = [" ".join([_third_person(v.split(" ")[0]), *v.split(" ")[1:]]) for v in self.V]
        self.A = _split_forms(_ADJECTIVES, str, on_last=True)[0]
        self.ADV = _split_forms(_ADVERBS, str, on_last=True)[0]
        self.PREP = _PREPOSITIONS
        self.CONJ = _CONNECTIVES
        coined = [w for w in dict.fromkeys(_coin(rng) for _ in range(4000))
                  if not any(bad in w.lower() for bad in _UNWANTED_FRAGMENTS)]
        roots = [h + t for h in _ROOT_HEADS for t in _ROOT_TAILS]
        rng.shuffle(roots)
        self.COINED = coined
        self.ROOTS = roots
        self.SURNAMES = roots[: len(roots) // 2] + coined[:800]
        self.PLACES = [r for r in roots[len(roots) // 2 :]]
        self.ORG = [f"{pick(rng, roots + coined)} {pick(rng, _COMPANY_SUFFIXES)}" for _ in range(6000)]
        self.PERSON = [f"{pick(rng, _FIRST_NAMES)} {pick(rng, self.SURNAMES)}" for _ in range(6000)]
        self.PLACE = [f"{p}, {pick(rng, _US_STATES)}" if rng.random() < 0.6 else p for p in self.PLACES]
        self.AMT = [_money(rng) for _ in range(20000)]
        self.PCT = [f"{int(rng.random() * 400) / 10 + 0.5:.1f}%" for _ in range(2000)]
        self.DATE = [_date(rng) for _ in range(6000)]
        self.PER = [_period(rng) for _ in range(300)]
        self.REF = [_ref(rng) for _ in range(3000)]
        self.NUMBER = [str(i) for i in range(3, 400)]
        self.NP = self._noun_phrases(rng, plural=False, n=30000)
        self.NPS = self._noun_phrases(rng, plural=True, n=30000)

    def _noun_phrases(self, rng: random.Random, plural: bool, n: int) -> list[str]:
        N, NS, A = self.N, self.NS, self.A
        head = NS if plural else N
        dets = (["the", "all", "such", "any", "its", "their", "those", "certain", "other", "these", "", "", ""]
                if plural else ["the", "any", "such", "each", "its", "their", "a", "the", "the", "every", "that", "no"])
        out: list[str] = []
        r = rng.random
        for _ in range(n):
            x = r()
            d = dets[int(r() * len(dets))]
            if x < 0.35:
                words = [d, A[int(r() * len(A))], head[int(r() * len(head))]]
            elif x < 0.55:
                words = [d, N[int(r() * len(N))], head[int(r() * len(head))]]
            elif x < 0.7:
                words = [d, head[int(r() * len(head))], "of", NS[int(r() * len(NS))]] if r() < 0.5 else [d, head[int(r() * len(head))]]
            elif x < 0.85:
                words = [d, A[int(r() * len(A))], N[int(r() * len(N))], head[int(r() * len(head))]]
            else:
                words = [A[int(r() * len(A))], head[int(r() * len(head))]]
            s = " ".join(w for w in words if w)
            if s.startswith("a ") and s[2:3] in "aeiou":
                s = "an " + s[2:]
            out.append(s)
        return out

    def get(self, name: str) -> list[str]:
        return getattr(self, name)


@cache
def _banks() -> _Banks:
    return _Banks()


_FIELD = re.compile(r"\{([A-Z_]+)\}")


@cache
def _parse_frames(frames: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Frames as (format string with positional fields, bank name per field)."""
    out = []
    for f in frames:
        f = f.replace("{V}s", "{VS}")
        out.append((_FIELD.sub("{}", f), tuple(_FIELD.findall(f))))
    return tuple(out)


_A_BEFORE_VOWEL = re.compile(r"\b([Aa]) (?=[aeiouAEIOU])")


def _fix_articles(text: str) -> str:
    return _A_BEFORE_VOWEL.sub(r"\1n ", text)


class _Writer:
    """Fills frames from the global banks plus per-document banks (party names, terms...)."""

    def __init__(self, rng: random.Random, local: dict[str, list[str]]) -> None:
        self.rng = rng
        b = _banks()
        self.banks: dict[str, list[str]] = {name: b.get(name) for name in (
            "N", "NS", "A", "V", "VPP", "ADV", "PREP", "CONJ", "ORG", "PERSON", "PLACE", "AMT",
            "PCT", "DATE", "PER", "REF", "NUMBER", "NP", "NPS", "VS")}
        self.banks.update(local)
        self._compiled: dict[tuple[str, ...], list[tuple[str, list[list[str]]]]] = {}

    def compile(self, frames: Sequence[str]) -> list[tuple[str, list[list[str]]]]:
        key = tuple(frames)
        got = self._compiled.get(key)
        if got is None:
            got = [(fmt, [self.banks[n] for n in names]) for fmt, names in _parse_frames(key)]
            self._compiled[key] = got
        return got

    def sentences(self, frames: Sequence[str], n: int) -> str:
        compiled = self.compile(frames)
        r = self.rng.random
        out = []
        for _ in range(n):
            fmt, banks = compiled[int(r() * len(compiled))]
            s = fmt.format(*[b[int(r() * len(b))] for b in banks])
            out.append(s[0].upper() + s[1:])
        return " ".join(out)

    def fill(self, template: str) -> str:
        r = self.rng.random
        banks = self.banks

        def one(m: re.Match[str]) -> str:
            b = banks[m.group(1)]
            return b[int(r() * len(b))]

        return _FIELD.sub(one, template.replace("{V}s", "{VS}"))


# ---------------------------------------------------------------------------------------------
# Layout helpers
# ---------------------------------------------------------------------------------------------

_WORDS = re.compile(r"[^\W_]+")


def _title(words: str) -> str:
    small = {"of", "and", "or", "the", "to", "in", "for", "on", "a", "an", "by", "with"}
    out = []
    for i, w in enumerate(words.split(" ")):
        out.append(w if (i and w in small) else w[:1].upper() + w[1:])
    return " ".join(out)


def word_count(text: str) -> int:
    """Words as the auditor counts them (normalised), so fractions match its shingles."""
    from auditor.text.normalize import words_bytes

    return len(words_bytes(text))


# ---------------------------------------------------------------------------------------------
# Contracts
# ---------------------------------------------------------------------------------------------


def _company(rng: random.Random) -> tuple[str, str]:
    """A full company name and the short name the contract uses for it."""
    b = _banks()
    root = pick(rng, b.ROOTS) if rng.random() < 0.5 else pick(rng, b.COINED)
    if rng.random() < 0.3:
        root = f"{root} {pick(rng, b.COINED)}"
    return f"{root} {pick(rng, _COMPANY_SUFFIXES)}", root.split(" ")[0]


def _address(rng: random.Random) -> str:
    b = _banks()
    street = pick(rng, b.ROOTS)
    kind = pick(rng, ["Road", "Street", "Avenue", "Boulevard", "Parkway", "Drive", "Plaza", "Lane"])
    suite = f", Suite {int(rng.random() * 2900) + 100}" if rng.random() < 0.6 else ""
    return (f"{int(rng.random() * 9900) + 100} {street} {kind}{suite}, {pick(rng, b.PLACES)}, "
            f"{pick(rng, _US_STATES)} {int(rng.random() * 89999) + 10000:05d}")


def _defined_term(rng: random.Random) -> str:
    b = _banks()
    x = rng.random()
    if x < 0.35:
        return _title(f"{pick(rng, b.A)} {pick(rng, b.N)}")
    if x < 0.6:
        return f"{pick(rng, b.COINED)} {_title(pick(rng, b.N))}"
    if x < 0.85:
        return _title(f"{pick(rng, b.N)} {pick(rng, b.NS)}")
    return _title(f"{pick(rng, b.A)} {pick(rng, b.N)} {pick(rng, b.N)}")


def _section_heading(rng: random.Random) -> str:
    b = _banks()
    x = rng.random()
    if x < 0.3:
        return _title(f"{pick(rng, b.A)} {pick(rng, b.NS)}")
    if x < 0.55:
        return _title(f"{pick(rng, b.N)} of {pick(rng, b.NS)}")
    if x < 0.8:
        return _title(f"{pick(rng, b.NS)} and {pick(rng, b.NS)}")
    return _title(pick(rng, b.NS))


_ALTERNATIVES = re.compile(r"\[([^\[\]]*)\]")


def _fill(rng: random.Random, template: str, values: dict[str, str]) -> str:
    """Resolve ``[a|b]`` alternatives (the small variations of shared text), then ``{NAME}``s."""
    r = rng.random

    def alt(m: re.Match[str]) -> str:
        options = m.group(1).split("|")
        return options[int(r() * len(options))]

    text = _ALTERNATIVES.sub(alt, template)
    return _FIELD.sub(lambda m: values[m.group(1)], text) if values else text


class _ContractWriter:
    """Per-contract state: parties, defined terms, and a writer per party order."""

    def __init__(self, rng: random.Random, kind: str) -> None:
        self.rng = rng
        spec = _KINDS[kind]
        self.kind = kind
        self.title = pick(rng, spec["titles"])
        role_a, role_b = pick(rng, spec["roles"])
        self.a_full, a_root = _company(rng)
        self.b_full, b_root = _company(rng)
        self.b_is_person = kind == "employment" or (kind == "consulting" and rng.random() < 0.5)
        if self.b_is_person:
            self.b_full = pick(rng, _banks().PERSON)
            b_root = self.b_full.split(" ")[-1]
        self.a = a_root if rng.random() < 0.5 else role_a
        self.b = b_root if (rng.random() < 0.5 and b_root != a_root) else role_b
        if self.a == self.b:
            self.b = role_b if self.a != role_b else role_a
        self.short = "Lease" if kind == "lease" and "Lease" in self.title else "Agreement"
        self.terms = list(dict.fromkeys(_defined_term(rng) for _ in range(int(rng.random() * 8) + 6)))
        local = {
            "AG": [f"this {self.short}"],
            "DT": [f"the {t}" for t in self.terms],
        }
        self.ab = _Writer(rng, {**local, "P": [self.a], "Q": [self.b]})
        self.ba = _Writer(rng, {**local, "P": [self.b], "Q": [self.a]})
        self.state = pick(rng, _GOVERNING_STATES)
        self.city = pick(rng, _banks().PLACES)
        self.width = pick(rng, [70, 72, 76, 78, 80])

    def sentences(self, frames: Sequence[str], n: int) -> str:
        w = self.ab if self.rng.random() < 0.55 else self.ba
        return w.sentences(frames, n)

    def para(self, text: str) -> str:
        return wrap(text, self.width)

    def head(self) -> list[str]:
        rng = self.rng
        st_a, st_b = pick(rng, _US_STATES), pick(rng, _US_STATES)
        form_a, form_b = pick(rng, _ENTITY_FORMS), pick(rng, _ENTITY_FORMS)
        b_desc = (f"an individual residing in {pick(rng, _banks().PLACE)}" if self.b_is_person
                  else f"a {st_b} {form_b}")
        pre = _fill(rng, pick(rng, _PREAMBLE) + pick(rng, _PARTIES_SENTENCE), {
            "TITLE": self.title, "TITLE_U": self.title.upper(), "AGN": self.short,
            "DATE": _date(rng), "AF": self.a_full, "AD": f"a {st_a} {form_a}", "A": self.a,
            "BF": self.b_full, "BD": b_desc, "B": self.b})
        pre = _fix_articles(pre)
        out = [self.title.upper(), self.para(pre), pick(rng, ["RECITALS", "BACKGROUND", "W I T N E S S E T H:"])]
        frames = _RECITAL_FRAMES[:]
        for _ in range(int(rng.random() * 3) + 2):
            out.append(self.para(self.ab.fill(frames.pop(int(rng.random() * len(frames))))))
        out.append(self.para(_fill(rng, pick(rng, _CONSIDERATION), {})))
        return out

    def definitions(self, number: int, budget: int) -> list[str]:
        rng = self.rng
        out = [f"ARTICLE {number}\nDEFINITIONS"]
        defs: list[str] = []
        shared = _SHARED_DEFINITIONS[:]
        for _ in range(int(rng.random() * 3)):
            defs.append(_fill(rng, shared.pop(int(rng.random() * len(shared))), {"CITY": self.city}))
        for term in self.terms:
            frame = pick(rng, _DEFINITION_FRAMES).replace("{TERM}", term)
            defs.append(self.ab.fill(frame))
        size = 0
        kept: list[str] = []
        for d in sorted(defs, key=lambda d: d.lower()):
            if size > budget and kept:
                break
            kept.append(d)
            size += len(d)
        for i, d in enumerate(kept, 1):
            out.append(self.para(f"{number}.{i} {d}"))
        return out

    def section(self, number: str) -> list[str]:
        rng = self.rng
        heading = _section_heading(rng)
        out = [self.para(f"{number} {heading}. {self.sentences(_CONTRACT_FRAMES, int(rng.random() * 4) + 1)}")]
        if rng.random() < 0.35:
            n = int(rng.random() * 4) + 2
            for i in range(n):
                body = self.sentences(_CONTRACT_FRAMES, int(rng.random() * 2) + 1).rstrip(".")
                end = "; and" if i == n - 2 else ("." if i == n - 1 else ";")
                out.append(self.para(f"({'abcdefgh'[i]}) {body}{end}"))
        elif rng.random() < 0.4:
            out.append(self.para(self.sentences(_CONTRACT_FRAMES, int(rng.random() * 4) + 2)))
        return out

    def boilerplate(self, number: int, count: int) -> list[str]:
        rng = self.rng
        names = list(_BOILERPLATE)
        chosen = []
        for _ in range(min(count, len(names))):
            chosen.append(names.pop(int(rng.random() * len(names))))
        chosen.sort(key=list(_BOILERPLATE).index)
        ag = f"this {self.short}"
        out = [f"ARTICLE {number}\nMISCELLANEOUS"]
        for i, name in enumerate(chosen, 1):
            text = _fill(rng, pick(rng, _BOILERPLATE[name]), {
                "AGU": ag.upper(), "AGN": self.short, "AG": ag, "ST": self.state,
                "CITY": self.city, "A": self.a, "B": self.b, "D": _period(rng)})
            text = text[0].upper() + text[1:]
            out.append(self.para(f"{number}.{i} {name}. {text}"))
        return out

    def signatures(self) -> list[str]:
        rng = self.rng
        b = _banks()
        out = [self.para(_fill(rng, pick(rng, _WITNESS), {"AGN": self.short}))]
        for full, is_person in ((self.a_full, False), (self.b_full, self.b_is_person)):
            person = pick(rng, b.PERSON)
            if is_person:
                out.append(f"{full.upper()}\n\n/s/ {full}\nAddress: {_address(rng)}")
                continue
            out.append(f"{full.upper()}\n\nBy: /s/ {person}\nName: {person}\n"
                       f"Title: {pick(rng, _TITLES_OF_OFFICERS)}\nAddress: {_address(rng)}")
        return out


def contract(seed: int, target_bytes: int = 20_000, kind: str | None = None) -> str:
    """A synthetic contract of about ``target_bytes`` characters (within 10% from 6 KB up).

    Title, parties, recitals, a definitions article, numbered articles of numbered sections
    (some with lettered clauses), a miscellaneous article of shared boilerplate, and a
    signature block. Paragraphs are separated by one blank line and wrapped at 70-80 columns.
    """
    rng = random.Random(f"contract/{seed}")
    if kind is None:
        kind = pick(rng, CONTRACT_KINDS)
    elif kind not in _KINDS:
        raise UsageError(f"unknown contract kind {kind!r}; expected one of {', '.join(CONTRACT_KINDS)}")
    cw = _ContractWriter(rng, kind)
    head = cw.head()
    head += cw.definitions(1, max(400, target_bytes // 12))
    n_boiler = max(2, min(7, round(target_bytes / 5000)))
    tail = cw.boilerplate(0, n_boiler) + cw.signatures()
    size = sum(len(p) + 2 for p in head + tail)
    spec = _KINDS[kind]
    articles = [a for a in spec["articles"] if rng.random() < 0.75]
    extra = _GENERIC_ARTICLES[:]
    body: list[str] = []
    number = 1
    while True:
        number += 1
        if articles:
            name = articles.pop(0)
        elif extra:
            name = extra.pop(int(rng.random() * len(extra)))
        else:
            name = _section_heading(rng)
        art = [f"ARTICLE {number}\n{name.upper()}"]
        art_size = len(art[0]) + 2
        n_sections = int(rng.random() * 4) + 2
        done = False
        for j in range(1, n_sections + 1):
            sec = cw.section(f"{number}.{j}")
            sec_size = sum(len(p) + 2 for p in sec)
            if size + art_size + sec_size > target_bytes:
                # keep it if that lands closer to the target than stopping short
                if size + art_size + sec_size - target_bytes < target_bytes - (size + art_size):
                    art += sec
                    art_size += sec_size
                done = True
                break
            art += sec
            art_size += sec_size
        if len(art) > 1:
            body += art
            size += art_size
        else:
            number -= 1
        if done:
            break
    misc_number = number + 1
    tail[0] = f"ARTICLE {misc_number}\nMISCELLANEOUS"
    tail = [re.sub(r"^0\.(\d+) ", rf"{misc_number}.\1 ", p) for p in tail]
    return "\n\n".join(head + body + tail) + "\n"


# ---------------------------------------------------------------------------------------------
# Filings
# ---------------------------------------------------------------------------------------------


def _amount_cell(rng: random.Random, scale: int) -> str:
    v = int(rng.random() * scale) + 1
    if rng.random() < 0.12:
        return f"({v:,})"
    return f"{v:,}"


def _table(rng: random.Random, years: list[int], width: int) -> str:
    """A financial table as fixed-width text: caption, year header, rows of amounts."""
    start = int(rng.random() * (len(_FINANCIAL_LINES) - 6))
    n = int(rng.random() * 10) + 5
    labels = _FINANCIAL_LINES[start : start + n]
    scale = pick(rng, [9_999, 99_999, 999_999, 9_999_999])
    cols = int(rng.random() * 2) + 2
    label_w = max(30, width - 14 * cols)
    lines = [" " * label_w + "".join(f"{y:>14}" for y in years[:cols])]
    first = True
    for label in labels:
        cells = [_amount_cell(rng, scale) for _ in range(cols)]
        if first:
            cells = ["$ " + c for c in cells]
            first = False
        lines.append(f"{label[: label_w - 2]:<{label_w}}" + "".join(f"{c:>14}" for c in cells))
    caption = pick(rng, ["(in thousands, except per share data)", "(in thousands)", "(in millions)",
                          "(dollars in thousands)"])
    return caption + "\n" + "\n".join(lines)


class _FilingWriter:
    def __init__(self, rng: random.Random) -> None:
        b = _banks()
        self.rng = rng
        self.name, root = _company(rng)
        self.short = root
        self.year = 2009 + int(rng.random() * 15)
        self.years = [self.year, self.year - 1, self.year - 2]
        self.cik = f"{int(rng.random() * 1_900_000) + 10_000:010d}"
        self.state = pick(rng, _GOVERNING_STATES)
        self.width = pick(rng, [76, 78, 80, 84])
        segments = [f"{pick(rng, b.COINED)} {_title(pick(rng, b.N))}" for _ in range(int(rng.random() * 3) + 2)]
        products = [pick(rng, b.COINED) for _ in range(int(rng.random() * 8) + 4)]
        fy = [f"fiscal {y}" for y in self.years] + [f"the year ended December 31, {y}" for y in self.years]
        self.writer = _Writer(rng, {
            "CO": [self.short, "The Company", "We"],
            "SEG": [f"the {s} segment" for s in segments],
            "PRODUCT": products,
            "FY": fy,
        })
        self.segments = segments
        self.officers = [(pick(rng, b.PERSON), t) for t in ("Chief Executive Officer", "Chief Financial Officer")]

    def para(self, text: str) -> str:
        return wrap(text, self.width)

    def prose(self, lo: int = 3, hi: int = 8) -> str:
        return self.para(self.writer.sentences(_FILING_PROSE_FRAMES, int(self.rng.random() * (hi - lo + 1)) + lo))

    def cover(self) -> list[str]:
        rng = self.rng
        return [
            "UNITED STATES\nSECURITIES AND EXCHANGE COMMISSION\nWashington, D.C. 20549",
            "FORM 10-K",
            "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
            f"For the fiscal year ended December 31, {self.year}",
            f"Commission File Number 001-{int(rng.random() * 90000) + 10000}",
            f"{self.name.upper()}\n(Exact name of registrant as specified in its charter)",
            f"{self.state:<40}{int(rng.random() * 89) + 10}-{int(rng.random() * 8999999) + 1000000}\n"
            f"{'(State of incorporation)':<40}(I.R.S. Employer Identification No.)",
            f"{_address(rng)}\n(Address of principal executive offices)",
            self.para(_FILING_BOILERPLATE[0]),
        ]

    def fixed_item(self, title: str) -> list[str]:
        """Items every filing words alike (or nearly): shared filing boilerplate."""
        if title == "Controls and Procedures":
            return [self.para(_FILING_BOILERPLATE[1]), self.para(_FILING_BOILERPLATE[2])]
        if title.startswith(("Directors", "Executive Comp", "Security Own", "Certain Rel")):
            return [self.para(_FILING_BOILERPLATE[3])]
        return ["None." if self.rng.random() < 0.6 else "Not applicable."]

    def item_body(self, title: str, budget: int) -> list[str]:
        rng = self.rng
        out: list[str] = []
        size = 0
        tables = title.startswith(("Management's", "Financial", "Market for", "Quantitative"))
        notes = 0
        while True:
            x = rng.random()
            if title == "Risk Factors" and x < 0.3:
                p = self.para(self.writer.sentences(_RISK_HEADING_FRAMES, 1))
            elif title == "Financial Statements and Supplementary Data" and x < 0.08:
                notes += 1
                p = f"Note {notes}. {_section_heading(rng)}"
            elif tables and x < 0.25:
                p = _table(rng, self.years, self.width)
            elif x < 0.33 and title == "Business" and out and "\n" in out[-1]:
                p = _section_heading(rng)
            else:
                p = self.prose()
            if size + (len(p) + 2) // 2 > budget:
                return out
            out.append(p)
            size += len(p) + 2

    def signatures(self) -> list[str]:
        out = ["SIGNATURES", self.para(_FILING_BOILERPLATE[4]), self.name.upper()]
        for person, title in self.officers:
            out.append(f"By: /s/ {person}\n{person}\n{title}")
        return out


def filing_parts(
    seed: int,
    target_bytes: int = 400_000,
    exhibits: Sequence[str] = (),
    positions: Sequence[float] | None = None,
) -> tuple[list[str], list[int | None]]:
    """The paragraphs of :func:`filing`, each tagged with the index of the exhibit it is.

    Joining the paragraphs with ``"\\n\\n"`` gives the filing text; the tags let callers lay the
    same filing out differently (HTML, EDGAR) and still locate every inserted text.
    """
    rng = random.Random(f"filing/{seed}")
    fw = _FilingWriter(rng)
    front = fw.cover()
    tail = fw.signatures()
    inserted = sum(len(e) + 2 for e in exhibits)
    contents: list[list[str]] = []
    for _, _, title, weight in _ITEMS_10K:
        if title == "Exhibits and Financial Statement Schedules":
            contents.append([_exhibit_index(rng, fw, exhibits)])
        else:
            contents.append([] if weight else fw.fixed_item(title))
    headings = [p for part, item, title, _ in _ITEMS_10K for p in (part, f"{item} {title}") if p]
    fixed = sum(len(p) + 2 for p in front + tail + headings + [q for c in contents for q in c])
    budget = max(0, target_bytes - inserted - fixed)
    total_weight = sum(w for *_, w in _ITEMS_10K)
    body: list[str] = []
    for (part, item, title, weight), content in zip(_ITEMS_10K, contents, strict=True):
        if weight:
            content = fw.item_body(title, int(budget * weight / total_weight))
        if part:
            body.append(part)
        body.append(f"{item} {title}")
        body += content
    if positions is None:
        positions = sorted(0.05 + 0.9 * rng.random() for _ in exhibits)
    if len(positions) != len(exhibits):
        raise UsageError(f"{len(exhibits)} exhibits but {len(positions)} positions")
    # Insert between paragraphs, never right after a heading-like paragraph.
    slots: list[list[int]] = [[] for _ in range(len(body) + 1)]
    for k, pos in sorted(enumerate(positions), key=lambda kp: (kp[1], kp[0])):
        i = min(len(body), max(1, round(float(pos) * len(body))))
        while 0 < i < len(body) and len(body[i - 1]) < 120 and "\n" not in body[i - 1]:
            i += 1
        slots[i].append(k)
    paras: list[str] = list(front)
    tags: list[int | None] = [None] * len(front)
    for i, p in enumerate(body):
        for k in slots[i]:
            paras.append(exhibits[k].strip("\n"))
            tags.append(k)
        paras.append(p)
        tags.append(None)
    for k in slots[len(body)]:
        paras.append(exhibits[k].strip("\n"))
        tags.append(k)
    paras += tail
    tags += [None] * len(tail)
    return paras, tags


def _exhibit_index(rng: random.Random, fw: _FilingWriter, exhibits: Sequence[str]) -> str:
    lines = ["Exhibit No.  Description",
             "3.1          Amended and Restated Certificate of Incorporation of the Registrant",
             "3.2          Amended and Restated Bylaws of the Registrant"]
    for k, text in enumerate(exhibits, 1):
        first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "Agreement")
        lines.append(f"10.{k:<10}{_title(first.lower())[:90]}")
    lines += ["21.1         Subsidiaries of the Registrant",
              "23.1         Consent of Independent Registered Public Accounting Firm",
              "31.1         Certification of Chief Executive Officer pursuant to Rule 13a-14(a)",
              "32.1         Certification pursuant to 18 U.S.C. Section 1350"]
    return "\n".join(lines)


def filing(
    seed: int,
    target_bytes: int = 400_000,
    exhibits: Sequence[str] = (),
    positions: Sequence[float] | None = None,
) -> tuple[str, list[tuple[int, int]]]:
    """An annual-report-like filing of about ``target_bytes`` characters, texts inserted.

    ``exhibits`` are inserted verbatim between paragraphs (leading and trailing newlines
    dropped) at ``positions``, fractions of the filing body (default: drawn from the seed).
    ``target_bytes`` counts the inserted texts too; the filing's own text (cover, item
    headings, fixed items, signatures) never shrinks below ~6 KB. Returns the text and the ``[start, end)`` character span of each exhibit.
    """
    paras, tags = filing_parts(seed, target_bytes, exhibits, positions)
    spans: list[tuple[int, int]] = [(0, 0)] * len(exhibits)
    pos = 0
    for p, tag in zip(paras, tags, strict=True):
        if tag is not None:
            spans[tag] = (pos, pos + len(p))
        pos += len(p) + 2
    return "\n\n".join(paras) + "\n", spans


def filing_company(seed: int) -> dict[str, str]:
    """Registrant name, CIK and fiscal year of ``filing(seed)``, for EDGAR headers."""
    fw = _FilingWriter(random.Random(f"filing/{seed}"))
    return {"name": fw.name, "cik": fw.cik, "year": str(fw.year), "state": fw.state,
            "officer": fw.officers[0][0], "officer_title": fw.officers[0][1],
            "cfo": fw.officers[1][0]}


def partial(text: str, fraction: float, seed: int) -> str:
    """A contiguous run of whole paragraphs holding about ``fraction`` of the text's words.

    Of all runs whose word share is closest to ``fraction`` (within one percentage point of the
    best), one is picked with ``seed``. The run is sliced from ``text``, so it is verbatim.
    """
    if not 0 < fraction <= 1:
        raise UsageError(f"fraction must be in (0, 1], got {fraction}")
    starts = [0] + [m.end() for m in PARAGRAPH_BREAK.finditer(text)]
    ends = [m.start() for m in PARAGRAPH_BREAK.finditer(text)] + [len(text)]
    counts = [word_count(text[a:b]) for a, b in zip(starts, ends, strict=True)]
    total = sum(counts) or 1
    goal = fraction * total
    cands: list[tuple[float, int, int]] = []
    for i in range(len(counts)):
        acc = 0
        for j in range(i, len(counts)):
            acc += counts[j]
            cands.append((abs(acc - goal) / total, i, j))
            if acc >= goal:
                break
    best = min(c[0] for c in cands)
    near = [c for c in cands if c[0] <= best + 0.01]
    _, i, j = near[int(random.Random(f"partial/{seed}").random() * len(near))]
    return text[starts[i] : ends[j]].strip("\n") + "\n"


# ---------------------------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------------------------

_ENTITIES = str.maketrans({"\u201c": "&#8220;", "\u201d": "&#8221;", "\u2018": "&#8216;",
                           "\u2019": "&#8217;", "\u2014": "&#8212;"})
_DEFINED = re.compile(r"(&#8220;[A-Z][^&<]{0,60}?&#8221;)")
_SECTION_NO = re.compile(r"^<p>(\d+(?:\.\d+)+\.?\s+[A-Z][^.<&]{0,80}?\.)(?=\s)", re.M)
_CELL_SPLIT = re.compile(r" {2,}")


def _escape(text: str) -> str:
    """HTML-escaped text with typographic quotes as character references; ASCII out."""
    t = text.replace("\f", "")
    if '"' in t or "'" in t or " -- " in t:
        t = curly_quotes(t)
    t = html.escape(t, quote=False)
    if not t.isascii():
        t = t.translate(_ENTITIES)
        if not t.isascii():
            t = t.encode("ascii", "xmlcharrefreplace").decode("ascii")
    return t


def _html_blocks(text: str) -> str:
    """Blocks for the paragraphs of ``text``; everything is paragraph-local, so converting
    parts of a text separately gives the same HTML as converting the whole."""
    blocks = []
    for par in paragraphs(_escape(text)):
        if not par.strip():
            continue
        if is_table(par):
            rows = ["<tr>" + " ".join(f"<td>{c}</td>" for c in _CELL_SPLIT.split(ln.strip())) + "</tr>"
                    for ln in par.split("\n")]
            blocks.append("<table>\n" + "\n".join(rows) + "\n</table>")
        elif is_heading(par):
            blocks.append(f"<h2>{' '.join(par.split())}</h2>")
        elif is_block(par):
            blocks.append("<p>" + "<br>\n".join(ln.strip() for ln in par.split("\n")) + "</p>")
        else:
            if "-\n" in par:
                par = HYPHENATED_LINE_END.sub("", par)
            blocks.append(f"<p>{' '.join(par.split())}</p>")
    if not blocks:
        return ""
    out = "\n".join(blocks) + "\n"
    out = _SECTION_NO.sub(r"<p><b>\1</b>", out)
    if "&#8220;" in out:
        out = _DEFINED.sub(r"<b>\1</b>", out)
    return out.replace("WHEREAS,", "<i>WHEREAS</i>,").replace("provided, however,", "<i>provided, however</i>,")


def _html_head(title: str) -> str:
    return (f'<html>\n<head>\n<meta charset="utf-8">\n<title>{_escape(title)}</title>\n'
            "</head>\n<body>\n")


_HTML_TAIL = "</body>\n</html>\n"


def to_html_parts(parts: Sequence[str], title: str) -> tuple[str, list[tuple[int, int]]]:
    """HTML of the texts ``parts`` in sequence, with the character span of each part's HTML.

    Each part converts paragraph by paragraph, so converting parts separately gives the same
    HTML as converting their concatenation (when parts end at paragraph boundaries).
    """
    out = [_html_head(title)]
    pos = len(out[0])
    spans = []
    for text in parts:
        chunk = _html_blocks(text)
        spans.append((pos, pos + len(chunk)))
        out.append(chunk)
        pos += len(chunk)
    out.append(_HTML_TAIL)
    return "".join(out), spans


def to_html(text: str, title: str) -> str:
    """A simple HTML rendering: <p> paragraphs, <h2> headings, <table>s, bold defined terms
    and section captions, italics, and character references for quotes and ``&``."""
    return to_html_parts([text], title)[0]


def certification(seed: int, date: str) -> str:
    """The CEO certification (an EX-31.1 exhibit) of ``filing(seed)``: near-identical in every
    filing, as in real submissions."""
    co = filing_company(seed)
    return _fill(random.Random(0), _CERTIFICATION, {
        "PERSON": co["officer"], "CO": co["name"], "TITLE": co["officer_title"], "DATE": date})


def subsidiaries(seed: int) -> str:
    """A subsidiaries list (an EX-21 exhibit) for ``filing(seed)``."""
    rng = random.Random(f"subsidiaries/{seed}")
    b = _banks()
    co = filing_company(seed)
    rows = [f"{pick(rng, b.ORG):<50}{pick(rng, _US_STATES)}" for _ in range(int(rng.random() * 8) + 3)]
    return f"SUBSIDIARIES OF {co['name'].upper()}\n\n" + "\n".join(rows) + "\n"
