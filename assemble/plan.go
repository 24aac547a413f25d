package assemble

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Plan is build/ctxplan.json: seed 003's fields (version, flow_id,
// order_rule, parts with rank/kind/role/uri/cid/bytes/status, total_bytes,
// ctx_digest) plus token counts, per part and in total, for prompt.mdctx.
type Plan struct {
	Version     string         `json:"version"`
	FlowID      string         `json:"flow_id"`
	OrderRule   string         `json:"order_rule"`
	Parts       []PlanPart     `json:"parts"`
	TotalBytes  int            `json:"total_bytes"`
	TotalTokens int            `json:"total_tokens"`
	Encoding    string         `json:"encoding"`
	TokenCount  string         `json:"token_count"` // "exact" or "estimate"
	Budget      int            `json:"budget"`
	ByRole      map[string]int `json:"tokens_by_role"`
	// CtxDigest is the sha256 of prompt.mdctx: two plans with the same
	// digest sent the model the same bytes.
	CtxDigest string `json:"ctx_digest"`
	// Secrets says what became of the secrets in active parts.
	Secrets PlanSecrets `json:"secrets"`
}

// PlanSecrets records the secrets an assembly found: "redacted" (replaced
// by [REDACTED:<rule-id>]) or "allowed" (sent as they are, --allow-secrets).
type PlanSecrets struct {
	Mode     string      `json:"mode"`
	Findings []Redaction `json:"findings"`
}

// PlanPart is one part of ctxplan.json.
type PlanPart struct {
	Rank   string `json:"rank"`
	Kind   string `json:"kind"`
	Role   string `json:"role"`
	URI    string `json:"uri"`
	CID    string `json:"cid"`
	Bytes  int    `json:"bytes"`
	Status string `json:"status"`
	Tokens int    `json:"tokens"`
	Link   bool   `json:"link,omitempty"`
	Pinned bool   `json:"pinned,omitempty"`
	Detail string `json:"detail,omitempty"`
	Origin string `json:"origin,omitempty"`
	Span   string `json:"span,omitempty"`
}

// PlanVersion is the ctxplan.json version dossier writes.
const PlanVersion = "1.0"

// NewPlan describes f as assembled into res, which must be the mdctx
// result. total_bytes sums the active parts, as in seed 003's example.
func NewPlan(f *Flow, res Result, budget int) Plan {
	pl := Plan{
		Version:     PlanVersion,
		FlowID:      f.ID,
		OrderRule:   "lexical",
		Parts:       make([]PlanPart, len(f.Parts)),
		TotalTokens: res.Tokens,
		Encoding:    res.Encoding,
		TokenCount:  "exact",
		Budget:      budget,
		ByRole:      map[string]int{},
	}
	if !res.Exact {
		pl.TokenCount = "estimate"
	}
	for r, n := range res.ByRole {
		pl.ByRole[string(r)] = n
	}
	for i := range f.Parts {
		p := &f.Parts[i]
		pl.Parts[i] = PlanPart{
			Rank: p.Rank, Kind: p.Kind, Role: string(p.Role),
			URI: "file://" + p.File, CID: p.CID, Bytes: p.Bytes,
			Status: string(p.Status), Link: p.Link, Pinned: p.Pinned,
			Detail: string(p.Detail), Origin: p.Source.URI, Span: p.Source.Span,
		}
		// A part refused by its state (outside, not a regular file) has
		// no content to count.
		if i < len(res.PartTokens) && (p.Status == Active || p.Status == Skipped) {
			pl.Parts[i].Tokens = res.PartTokens[i]
		}
		if p.Active() {
			pl.TotalBytes += p.Bytes
		}
	}
	pl.Secrets = PlanSecrets{Mode: "redacted", Findings: res.Redactions}
	if f.AllowSecrets {
		pl.Secrets.Mode = "allowed"
	}
	if pl.Secrets.Findings == nil {
		pl.Secrets.Findings = []Redaction{}
	}
	sum := sha256.Sum256([]byte(res.Text))
	pl.CtxDigest = "sha256:" + hex.EncodeToString(sum[:])
	return pl
}

// JSON renders the plan as indented JSON with a final newline.
func (pl Plan) JSON() []byte {
	out, _ := json.MarshalIndent(pl, "", "  ") // plain structs always marshal
	return append(out, '\n')
}
