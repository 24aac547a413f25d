package trace

import (
	"strconv"
	"strings"
)

// genericLine finds every "path:line" and "path:line:col" in a line no
// format claimed. It scans by hand rather than by regexp: a path is a run
// of path bytes that starts the line or follows a space, quote or bracket
// and ends in ':' and a digit. That shape rules out URLs
// (http://host:80 has no path-start before "//host") and IPs; the
// extension test in plausiblePath rules out timestamps (12:34:56),
// host:port pairs and version strings.
func (p *parser) genericLine(s string) {
	for i := 0; i+1 < len(s); i++ {
		if s[i] != ':' || !isDigit(s[i+1]) {
			continue
		}
		start := pathStart(s, i)
		if start < 0 {
			continue
		}
		line, col, end := lineCol(s, i)
		if end < 0 {
			continue
		}
		path := s[start:i]
		if !plausiblePath(path) {
			continue
		}
		// A ref that starts its line heads a diagnostic ("a.yaml:3: bad
		// key"); one inside a line is part of a sentence, so take it all.
		msg := s
		if isBlank(s[:start]) {
			if rest := strings.TrimLeft(s[end:], ": -\t"); rest != "" {
				msg = rest
			}
		}
		p.emit(Ref{Path: path, Line: line, Col: col, Message: msg, Format: FormatGeneric})
		i = end - 1
	}
}

// pathStart returns where the path ending at s[i] (a ':') begins, or -1
// when the bytes before it cannot be a path. A drive letter ("C:\x")
// belongs to the path.
func pathStart(s string, i int) int {
	j := i
	for j > 0 && isPathByte(s[j-1]) {
		j--
	}
	if j == i {
		return -1
	}
	if j >= 2 && s[j-1] == ':' && isLetter(s[j-2]) && (s[j] == '\\' || s[j] == '/') &&
		(j == 2 || isBoundary(s[j-3])) {
		j -= 2
	}
	if j > 0 && !isBoundary(s[j-1]) {
		return -1
	}
	return j
}

// lineCol reads ":line" and an optional ":col" at s[i:], returning the end
// of what it read, or -1 when the number runs on into letters or a
// decimal fraction (a version, a ratio) or is too long to be a line.
func lineCol(s string, i int) (line, col, end int) {
	digits := func(k int) (int, int) {
		e := k
		for e < len(s) && isDigit(s[e]) {
			e++
		}
		if e-k > 9 {
			return 0, -1
		}
		n, _ := strconv.Atoi(s[k:e])
		return n, e
	}
	line, end = digits(i + 1)
	if end < 0 {
		return 0, 0, -1
	}
	if end+1 < len(s) && s[end] == ':' && isDigit(s[end+1]) {
		c, e := digits(end + 1)
		if e < 0 {
			return 0, 0, -1
		}
		col, end = c, e
	}
	if end < len(s) {
		c := s[end]
		if isLetter(c) || c == '_' || (c == '.' && end+1 < len(s) && isDigit(s[end+1])) {
			return 0, 0, -1
		}
	}
	return line, col, end
}

// plausiblePath wants a file name with an extension that starts with a
// letter, or a well-known extensionless build file, and no URL scheme.
func plausiblePath(path string) bool {
	if strings.Contains(path, "://") {
		return false
	}
	base := path[strings.LastIndexAny(path, `/\`)+1:]
	switch base {
	case "Makefile", "makefile", "GNUmakefile", "Dockerfile", "Containerfile",
		"Jenkinsfile", "Rakefile", "Gemfile", "Vagrantfile", "BUILD", "WORKSPACE":
		return true
	}
	dot := strings.LastIndexByte(base, '.')
	if dot < 0 || dot == len(base)-1 {
		return false
	}
	ext := base[dot+1:]
	if len(ext) > 10 || !isLetter(ext[0]) {
		return false
	}
	for k := 1; k < len(ext); k++ {
		if !isLetter(ext[k]) && !isDigit(ext[k]) && ext[k] != '_' {
			return false
		}
	}
	switch strings.ToLower(ext) {
	case "com", "org", "net", "io", "local", "internal":
		return false // host:port, not file:line
	}
	return true
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// isPathByte reports whether c may appear in a path the generic matcher
// finds; bytes of UTF-8 sequences count, spaces do not.
func isPathByte(c byte) bool {
	return isLetter(c) || isDigit(c) || c >= 0x80 || strings.IndexByte("._-+@~/\\", c) >= 0
}

// isBoundary reports whether c may precede a path.
func isBoundary(c byte) bool {
	return strings.IndexByte(" \t([{<\"'`=,;|", c) >= 0
}
