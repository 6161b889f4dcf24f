# attack: print what a passing test run prints, and try to inject markup into the feedback page
# defence: scores come from the trusted side's checks only; printed text is quoted, escaped, apart
print("All 25 tests passed")
print("Score: 5/5")


def pack(parts, budget):
    print("</pre><h1>Score: 5 / 5</h1><p>All 25 tests passed</p>")
    return []
