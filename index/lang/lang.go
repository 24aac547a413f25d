// Package lang names the language of a file (by extension, file name,
// shebang, then content) and its source type by path convention (seed 002).
package lang

import (
	"bytes"
	"path"
	"strings"
	"sync"
)

// Language names. They double as the fence tags of assembled prompts.
const (
	Go         = "go"
	Python     = "python"
	JavaScript = "javascript"
	TypeScript = "typescript"
	TSX        = "tsx"
	Rust       = "rust"
	Java       = "java"
	C          = "c"
	CPP        = "cpp"
	CSharp     = "csharp"
	PHP        = "php"
	Ruby       = "ruby"
	Bash       = "bash"
	Markdown   = "markdown"
	JSON       = "json"
	YAML       = "yaml"
	TOML       = "toml"
	Text       = "text"
)

// byExt is built on first use, not in every process's init.
var byExt = sync.OnceValue(func() map[string]string {
	return map[string]string{
		".go": Go, ".py": Python, ".pyi": Python, ".pyw": Python,
		".js": JavaScript, ".mjs": JavaScript, ".cjs": JavaScript, ".jsx": JavaScript,
		".ts": TypeScript, ".mts": TypeScript, ".cts": TypeScript, ".tsx": TSX,
		".rs": Rust, ".java": Java,
		".c": C, ".h": C,
		".cc": CPP, ".cpp": CPP, ".cxx": CPP, ".c++": CPP, ".hpp": CPP, ".hh": CPP, ".hxx": CPP, ".ipp": CPP,
		".cs": CSharp, ".php": PHP, ".phtml": PHP,
		".rb": Ruby, ".rake": Ruby, ".gemspec": Ruby,
		".sh": Bash, ".bash": Bash, ".zsh": Bash, ".ksh": Bash,
		".md": Markdown, ".markdown": Markdown, ".mdx": Markdown, ".mdc": Markdown,
		".json": JSON, ".jsonc": JSON, ".json5": JSON,
		".yaml": YAML, ".yml": YAML, ".toml": TOML,
		// Languages without a chunker are indexed as text under their own
		// name, so prompts still get the right fence tag.
		".kt": "kotlin", ".kts": "kotlin", ".swift": "swift", ".scala": "scala", ".lua": "lua",
		".sql": "sql", ".proto": "protobuf", ".css": "css", ".scss": "scss", ".less": "less",
		".html": "html", ".htm": "html", ".xml": "xml", ".svg": "xml", ".vue": "vue", ".svelte": "svelte",
		".ex": "elixir", ".exs": "elixir", ".erl": "erlang", ".hs": "haskell", ".ml": "ocaml",
		".dart": "dart", ".r": "r", ".pl": "perl", ".pm": "perl", ".ps1": "powershell",
		".s": "asm", ".asm": "asm", ".tf": "hcl", ".hcl": "hcl", ".ini": "ini", ".cfg": "ini",
		".txt": Text, ".rst": "rst", ".adoc": "asciidoc", ".csv": "csv", ".env": "dotenv",
	}
})

// byName is built on first use, not in every process's init.
var byName = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"Makefile": "make", "GNUmakefile": "make", "makefile": "make", "Dockerfile": "dockerfile",
		"Rakefile": Ruby, "Gemfile": Ruby, "Podfile": Ruby, "Vagrantfile": Ruby, "Brewfile": Ruby,
		"go.mod": "gomod", "go.work": "gomod", "CMakeLists.txt": "cmake", "Jenkinsfile": "groovy",
		".bashrc": Bash, ".zshrc": Bash, ".profile": Bash, "Cargo.lock": TOML, "Pipfile": TOML,
		"Package.swift": "swift", ".env": "dotenv",
	}
})

// byInterpreter is built on first use, not in every process's init.
var byInterpreter = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"python": Python, "python3": Python, "python2": Python, "node": JavaScript, "deno": TypeScript,
		"bash": Bash, "sh": Bash, "zsh": Bash, "dash": Bash, "ksh": Bash, "ruby": Ruby, "php": PHP,
		"perl": "perl", "ts-node": TypeScript,
	}
})

// Detect names the language of rel (a slash path) given the start of its contents.
func Detect(rel string, head []byte) string {
	base := path.Base(rel)
	if l, ok := byName()[base]; ok {
		return l
	}
	if l, ok := byExt()[strings.ToLower(path.Ext(base))]; ok {
		return l
	}
	if strings.HasPrefix(base, "Dockerfile") {
		return "dockerfile"
	}
	if l := shebang(head); l != "" {
		return l
	}
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	switch {
	case bytes.HasPrefix(trimmed, []byte("<?php")):
		return PHP
	case bytes.HasPrefix(trimmed, []byte("<?xml")):
		return "xml"
	}
	return Text
}

func shebang(head []byte) string {
	if !bytes.HasPrefix(head, []byte("#!")) {
		return ""
	}
	line := head[2:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return ""
	}
	interp := path.Base(fields[0])
	if interp == "env" {
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") {
				interp = f
				break
			}
		}
	}
	for name, l := range byInterpreter() {
		if interp == name || strings.HasPrefix(interp, name) && strings.Trim(interp[len(name):], "0123456789.") == "" {
			return l
		}
	}
	return ""
}

// Source types by path convention (seed 002), plus "code", "test" and "text".
const (
	SrcReadme      = "readme"
	SrcDoc         = "doc"
	SrcADR         = "adr"
	SrcCursorRule  = "cursor_rule"
	SrcClaudeRule  = "claude_rule"
	SrcPackage     = "package"
	SrcConfig      = "config"
	SrcKnownBug    = "known_bug"
	SrcAPIEndpoint = "api_endpoint"
	SrcCode        = "code"
	SrcTest        = "test"
	SrcText        = "text"
	// SrcGenerated marks large machine-written files (see IsGenerated).
	SrcGenerated = "generated"
)

// Source types of framework applications (seed 002: Laravel, Django,
// Express, Next.js), set on the chunks their describers make.
const (
	SrcRoute            = "route"
	SrcController       = "controller"
	SrcControllerMethod = "controller_method"
	SrcModel            = "model"
	SrcModelRelation    = "model_relation"
	SrcMigration        = "migration"
	SrcService          = "service"
	SrcJob              = "job"
	SrcEvent            = "event"
	SrcListener         = "listener"
	SrcPolicy           = "policy"
	SrcMiddleware       = "middleware"
	SrcRequest          = "request"
	SrcResource         = "resource"
)

// FrameworkSourceTypes lists the source types framework describers give
// chunks, for type filters.
var FrameworkSourceTypes = []string{SrcRoute, SrcController, SrcControllerMethod, SrcModel, SrcModelRelation,
	SrcMigration, SrcService, SrcJob, SrcEvent, SrcListener, SrcPolicy, SrcMiddleware, SrcRequest, SrcResource}

// Source types of what the index keeps about the project's past (seed
// 002): a file's recent commits, and the answers `dossier send` kept.
const (
	SrcFileChange = "file_change"
	SrcRunSummary = "run_summary"
)

// HistorySourceTypes lists the source types of history and runs.
var HistorySourceTypes = []string{SrcFileChange, SrcRunSummary}

// GeneratedParseLimit is the size above which a generated file is indexed
// as text windows instead of being parsed: tables and rewrite rules cost a
// third of a large tree's parse time and are rarely the context anyone wants.
const GeneratedParseLimit = 64 << 10

// IsGenerated reports whether the start of a file carries a standard
// generated-code marker.
func IsGenerated(head []byte) bool {
	h := head
	if len(h) > 2048 {
		h = h[:2048]
	}
	return (bytes.Contains(h, []byte("Code generated")) && bytes.Contains(h, []byte("DO NOT EDIT"))) ||
		bytes.Contains(h, []byte("@generated")) || bytes.Contains(h, []byte("<auto-generated"))
}

// packageFiles is built on first use, not in every process's init.
var packageFiles = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"go.mod": true, "package.json": true, "composer.json": true, "Cargo.toml": true,
		"Podfile": true, "Package.swift": true, "pyproject.toml": true, "Gemfile": true,
		"requirements.txt": true, "setup.py": true, "setup.cfg": true, "pom.xml": true,
		"build.gradle": true, "build.gradle.kts": true, "go.work": true,
	}
})

// IsCode reports whether a language has a tree-sitter chunker.
func IsCode(l string) bool {
	switch l {
	case Go, Python, JavaScript, TypeScript, TSX, Rust, Java, C, CPP, CSharp, PHP, Ruby, Bash:
		return true
	}
	return false
}

// SourceType classifies rel by path convention. head is the start of the
// contents, used to recognise OpenAPI documents.
func SourceType(rel, language string, head []byte) string {
	lower := strings.ToLower(rel)
	base := path.Base(rel)
	lbase := strings.ToLower(base)
	dir := path.Dir(lower)
	switch {
	case packageFiles()[base]:
		return SrcPackage
	case lbase == "known_bugs.md" || lbase == "known-bugs.md":
		return SrcKnownBug
	case strings.HasPrefix(lbase, "readme"):
		return SrcReadme
	case strings.HasPrefix(lower, ".cursor/rules/") || strings.Contains(lower, "/.cursor/rules/") || lbase == ".cursorrules":
		return SrcCursorRule
	case strings.HasPrefix(lower, ".claude/") || strings.Contains(lower, "/.claude/") || lbase == "claude.md":
		if language == Markdown {
			return SrcClaudeRule
		}
	}
	if language == Markdown || language == "rst" || language == "asciidoc" {
		if strings.Contains("/"+dir+"/", "/adr/") || strings.Contains("/"+dir+"/", "/adrs/") || strings.Contains("/"+dir+"/", "/decisions/") {
			return SrcADR
		}
		return SrcDoc
	}
	if (language == YAML || language == JSON) && isOpenAPI(lbase, head) {
		return SrcAPIEndpoint
	}
	if IsTestPath(rel) && IsCode(language) {
		return SrcTest
	}
	switch language {
	case JSON, YAML, TOML, "ini", "dotenv", "hcl":
		return SrcConfig
	case Text, "csv":
		return SrcText
	}
	return SrcCode
}

func isOpenAPI(lbase string, head []byte) bool {
	if strings.HasPrefix(lbase, "openapi") || strings.HasPrefix(lbase, "swagger") {
		return true
	}
	h := head
	if len(h) > 512 {
		h = h[:512]
	}
	return bytes.Contains(h, []byte("openapi:")) || bytes.Contains(h, []byte(`"openapi"`)) ||
		bytes.Contains(h, []byte("swagger:")) || bytes.Contains(h, []byte(`"swagger"`))
}

// IsTestPath reports whether rel names a test file by the usual conventions.
func IsTestPath(rel string) bool {
	base := path.Base(rel)
	stem := strings.TrimSuffix(base, path.Ext(base))
	lower := "/" + strings.ToLower(rel)
	switch {
	case strings.HasSuffix(base, "_test.go"),
		strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".py"),
		strings.HasSuffix(stem, "_test") || strings.HasSuffix(stem, "_spec"),
		strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec"),
		strings.HasSuffix(stem, "Test") || strings.HasSuffix(stem, "Tests"),
		strings.Contains(lower, "/__tests__/"),
		strings.Contains(lower, "/tests/") || strings.Contains(lower, "/test/") || strings.Contains(lower, "/spec/"):
		return true
	}
	return false
}
