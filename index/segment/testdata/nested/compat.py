import sys

if sys.version_info >= (3, 8):
    def compat(x):
        return x
else:
    def compat(x):
        return None

try:
    import json

    def loads(s):
        return json.loads(s)
except ImportError:
    class Fallback:
        def go(self):
            pass
else:
    def fine():
        pass
finally:
    def done():
        pass

with open("x") as f:
    def reader():
        return f

TIMEOUT = 3

if __name__ == "__main__":
    print(reader())
