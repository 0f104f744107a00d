import sys, os, json
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
setup(sys.argv[1] if len(sys.argv) > 1 else "target/release/openapi-mcp")
import lib; BIN = lib.BIN; WORK = lib.WORK
