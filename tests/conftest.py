import os
import sys

# The rules twin and other helpers live beside the tests.
sys.path.insert(0, os.path.dirname(__file__))
