"""Real recorded page: result bytes and time uncut vs default budget vs _fields. Usage: python3 probe5.py BIN"""
import json, os, sys, time, statistics
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import judge as J
BIN = sys.argv[1]
issues, *_ = J.github_page(os.path.join(J.HERE, "data/fx/package/scenarios/api.github.com"))
page = json.dumps(issues[:100], separators=(",", ":")).encode()
up = J.Upstream()
up.routes.append((r"/repos/[^/]+/[^/]+/issues", lambda h, q, m: (200, [("Content-Type", "application/json"), ("Link", f'<{up.base}/repositories/1/issues?per_page=100&page=2>; rel="next"')], page)))
gh = os.path.join(J.HERE, "data/oa/package/generated/api.github.com.json")
args = {"owner": "o", "repo": "r", "per_page": 100}
for label, extra, a in (("uncut", ["--max-result-bytes", "100000000"], args), ("default", [], args),
                        ("_fields", [], dict(args, _fields=["number", "title", "user.login"]))):
    c = J.StdioClient([BIN, "serve", gh, "--base-url", up.base, "--include-op", "issues/list-for-repo"] + extra, "p5-" + label)
    try:
        c.initialize()
        times = []
        for _ in range(15):
            res, size, line, el = J.call(c, "issues_list_for_repo", a)
            times.append(el * 1000)
        print(f"{label:8} answer {len(page):,} B -> result {size:,} B, median {statistics.median(times):.1f} ms")
    finally:
        c.close()
up.stop()
