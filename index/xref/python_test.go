package xref

import (
	"slices"
	"testing"
)

const pySessions = `"""Session objects. Session.send() in a docstring is no call."""
import os.path
import json as _json
from typing import Optional
from .adapters import HTTPAdapter as Adapter
from .models import Request, PreparedRequest
from . import hooks
from .compat import *

DEFAULT_REDIRECT_LIMIT = 30
registry = Registry()


class Session(SessionRedirectMixin, metaclass=Meta):
    trust_env = True
    adapter: Adapter

    def __init__(self, auth: "AuthBase", cookies: Optional[CookieJar] = None):
        self.auth = auth
        self.hooks = hooks.default_hooks()
        self.adapter = Adapter()
        super().__init__()

    def request(self, method, url, **kwargs) -> "Response":
        req = Request(method=method.upper(), url=url)
        prep = self.prepare_request(req)
        resp = self.send(prep)
        self.adapter.close()
        self.auth.refresh()
        os.path.join("a", "b")
        _json.dumps({})
        registry.add(resp)
        hooks.dispatch_hook("response", resp)

        def fmt(r):
            return r.text
        fmt(resp)
        return [h.run() for h in self.hooks]

    @classmethod
    def create(cls):
        s = cls()
        s.mount()
        return s

    def prepare_request(self, request: Request) -> PreparedRequest:
        p = PreparedRequest()
        p.prepare(request.method)
        return p
`

func TestPythonSession(t *testing.T) {
	f := parseOK(t, "python", pySessions)
	wantImports := []string{"os.path=os.path:@2", "_json=json:@3", "Optional=typing:Optional@4",
		"Adapter=.adapters:HTTPAdapter@5", "Request=.models:Request@6", "PreparedRequest=.models:PreparedRequest@6",
		"hooks=.:hooks@7", "*=.compat:@8"}
	if got := importStrings(f); !slices.Equal(got, wantImports) {
		t.Errorf("imports %q, want %q", got, wantImports)
	}
	wantDefs(t, pySessions, f,
		"const DEFAULT_REDIRECT_LIMIT",
		"var registry :Registry",
		"class Session <SessionRedirectMixin>",
		"field Session.trust_env",
		"field Session.adapter :Adapter",
		"method Session.__init__",
		"field Session.auth :AuthBase",
		"field Session.hooks",
		"method Session.request :Response",
		"method Session.create",
		"method Session.prepare_request :PreparedRequest",
	)
	wantRefs(t, pySessions, f,
		"11 Registry bare call",
		"14 SessionRedirectMixin bare",
		"18 AuthBase bare",
		"18 CookieJar bare",
		// a from-import may bind a module or a name: the resolver reads it
		"20 default_hooks bare [hooks] call",
		"21 Adapter bare call",
		"22 __init__ super call",
		"25 Request bare call",
		"25 upper unknown call",
		"26 prepare_request self call",
		"27 send self call",
		"28 close self [adapter] call",
		"29 refresh self [auth] call",
		"30 join package os.path call",
		"31 dumps package _json call",
		"32 add bare [registry] call",
		"33 dispatch_hook bare [hooks] call",
		"36 text unknown",
		"38 run unknown call",
		"43 mount self call",
		"48 prepare bare [PreparedRequest] call",
		"48 method type Request",
	)
	noRefs(t, pySessions, f, 1, "send", "Session")
	noRefs(t, pySessions, f, 37, "fmt") // a nested function is a local
	noRefs(t, pySessions, f, 35, "fmt")
	checkIn(t, f)
}
