// Package secrettest has made-up credentials in the shapes gitleaks' rules
// look for, for tests of secret detection and redaction. None is real; they
// are assembled at run time so the source itself does not trip scanners.
package secrettest

import "strings"

// The made-up credentials.
var (
	AWSKey   = "AKIA" + "Z3MSJV4WWNKWW5FG"
	GitHub   = "ghp_" + "8zNqQkR2vX5mT9pL4wB7cY1dF6hJ3sA0eKuG"
	SlackBot = "xoxb-" + "2048937561234-2048937561234-aBcDeFgHiJkLmNoPqRsTuVwX"
	PEM      = "-----BEGIN RSA " + "PRIVATE KEY-----\n" +
		"MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n" +
		"aNnEy2mZtlAAaGmgTuBZ4fA0mZ5m8MCf3jU2M0mT1zQ4kxXQmRuEa1g3f8pP0PaP\n" +
		"-----END RSA " + "PRIVATE KEY-----"
)

// Rules are the rule ids that find AWSKey, GitHub, SlackBot and PEM.
var Rules = []string{"aws-access-token", "github-pat", "slack-bot-token", "private-key"}

// GoFile is a Go file holding the four credentials, in that order: the AWS
// key on line 4, the GitHub token on line 7 (inside func token), the Slack
// token on line 10 and the private key from line 12.
func GoFile() string {
	return "package main\n\n// config\nconst awsKey = \"" + AWSKey + "\"\n\nfunc token() string {\n\treturn \"" + GitHub + "\"\n}\n\n" +
		"var slack = \"" + SlackBot + "\"\n\nconst key = `" + PEM + "`\n"
}

// All lists the four credentials in file order.
func All() []string { return []string{AWSKey, GitHub, SlackBot, PEM} }

// TLSPEM is a made-up private key of 27 lines, the length of a 2048-bit RSA
// key's PEM: long enough that a span can hold only its middle lines.
var TLSPEM = func() string {
	lines := []string{"-----BEGIN RSA " + "PRIVATE KEY-----"}
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	x := uint32(2048)
	for range 25 {
		var l [64]byte
		for j := range l {
			x = x*1103515245 + 12345 // any fixed sequence: no two lines alike
			l[j] = b64[x>>26]
		}
		lines = append(lines, string(l[:]))
	}
	return strings.Join(append(lines, "-----END RSA "+"PRIVATE KEY-----"), "\n")
}()

// TLSGoFile is a Go file whose constant TLSKey holds TLSPEM from line 4
// (its BEGIN line) to line 30 (its END line); lines 31-34 are code.
func TLSGoFile() string {
	return "package deploy\n\n// TLSKey is the server's key.\nconst TLSKey = `" + TLSPEM + "`\n\n// Port is where it listens.\nconst Port = 8443\n"
}

// TLSPieces are cuts of every body line of TLSPEM (its first, middle and
// last 16 characters): a text showing any of them shows part of the key.
func TLSPieces() []string {
	var out []string
	for _, l := range strings.Split(TLSPEM, "\n")[1:26] {
		out = append(out, l[:16], l[24:40], l[48:])
	}
	return out
}
