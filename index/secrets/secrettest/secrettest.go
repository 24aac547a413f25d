// Package secrettest has made-up credentials in the shapes gitleaks' rules
// look for, for tests of secret detection and redaction. None is real; they
// are assembled at run time so the source itself does not trip scanners.
package secrettest

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
