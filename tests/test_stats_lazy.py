"""infra.stats imports scipy.stats on first use (a third of every ``playtest`` command's start), and its written-out
95% z is scipy's to the last bit."""

import subprocess
import sys


def test_z95_is_scipys_two_sided_95_percent_quantile_exactly():
    from scipy.stats import norm

    from infra.stats import Z95, z_for
    assert Z95 == float(norm.ppf(0.975))
    assert z_for(0.05) == Z95 and z_for(0.01) == float(norm.isf(0.005))


def test_the_command_line_starts_without_scipy_stats():
    code = "import sys, cli.main; print('scipy.stats' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
