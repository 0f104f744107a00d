"""The validators are not vacuous: a broken issue fails GitHub's advertised outputSchema. Usage: python3 sanity_validator.py BIN"""
import json, os, sys, copy
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import judge as J
BIN = sys.argv[1]
issues, *_ = J.github_page(os.path.join(J.HERE, "data/fx/package/scenarios/api.github.com"))
c = J.StdioClient([BIN, "serve", os.path.join(J.HERE, "data/oa/package/generated/api.github.com.json"), "--base-url", "http://127.0.0.1:9"], "sanity")
try:
    c.initialize()
    tools, _ = J.list_tools(c)
    t = J.by_path(tools)[("GET", "/repos/{owner}/{repo}/issues")]
    o = t["outputSchema"]
    print("whole recorded page valid:", J.validate({"result": issues[:100]}, o))
    bad = copy.deepcopy(issues[:3]); bad[1]["number"] = "seven"
    print("number as string:", J.validate({"result": bad}, o))
    bad = copy.deepcopy(issues[:3]); bad[2]["state"] = 5
    print("state as int:", J.validate({"result": bad}, o))
    print("not wrapped:", J.validate(issues[:3], o))
finally:
    c.close()
