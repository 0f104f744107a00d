import json, os, sys, tempfile, subprocess
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import judge as J
BIN = sys.argv[1]
up = J.Upstream(); J.setup_upstream(up)
d = tempfile.mkdtemp(dir=J.HERE, prefix="probe4-"); sp = os.path.join(d, "s.json"); json.dump(J.make_spec(up.base), open(sp, "w"))
r = subprocess.run([BIN, "serve", sp, "--result-copies", "text"], input=b"", capture_output=True, timeout=30)
print("--result-copies text without --no-output-schema: rc", r.returncode, r.stderr.decode()[-300:])
c = J.StdioClient([BIN, "serve", sp, "--result-copies", "text", "--no-output-schema"], "probe4")
try:
    c.initialize()
    res, size, _, _ = J.call(c, "list_items", {"per_page": 100})
    tx = J.texts(res)
    print("text only:", size, "B; structuredContent" , "structuredContent" in res, "; blocks", len(tx), "; items", len(json.loads(tx[-1])), "; note", tx[0][:120])
finally:
    c.close(); up.stop()
