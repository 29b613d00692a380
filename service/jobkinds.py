"""Every job kind, registered: the sweep kind is service/kinds.py's own, each other kind's module registers it when
imported here. The runner imports this module (so ``service.kinds.KINDS`` holds them all wherever jobs are checked or
run); a new kind adds its import line below. Here, not at the end of service/kinds.py: a kind's module imports
service.kinds, and kinds importing it back would be an import cycle (tests/test_layers.py)."""

from service import kind_compare, kind_ladder, kind_regress, kind_report  # noqa: F401 - each registers its kinds
from service.kinds import KINDS, kind_of  # noqa: F401 - the registry, full
