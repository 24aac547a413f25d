package trace

import (
	"strings"
)

// rubyState holds Collision's exception class for the message below its
// header; Ruby's own shapes keep their state in the open block.
type rubyState struct {
	laravelClass string
}

var (
	// "app/models/order.rb:12:in 'Order#total': undefined method (NoMethodError)",
	// "\tfrom app/x.rb:8:in `show'", RSpec's "# ./spec/x_spec.rb:9:in `block'".
	rubyFrameRe = lazyRegexp("^(\\s*)(from |# )?(\\S+?\\.(?:rb|rake|ru|erb|haml|slim|builder|gemspec)):(\\d+):in [`'](.+?)'(?:: (.*))?$")
	// Minitest's "OrderTest#test_total [test/models/order_test.rb:9]:".
	minitestLocRe = lazyRegexp(`^(\S+) \[(\S+?\.rb):(\d+)\]:?$`)
	// RSpec's summary: "rspec ./spec/models/order_spec.rb:7 # Order#total includes tax".
	rspecSummaryRe = lazyRegexp(`^rspec (\S+?\.rb):(\d+) # (.*)$`)
)

// rubyLine handles Ruby backtraces, RSpec frames and summary lines, and
// Minitest failure locations.
func (p *parser) rubyLine(s string) bool {
	if !strings.Contains(s, ".r") && !strings.Contains(s, ".erb") && !strings.Contains(s, ".haml") &&
		!strings.Contains(s, ".slim") && !strings.Contains(s, ".builder") && !strings.Contains(s, ".gemspec") {
		return false
	}
	if m := rspecSummaryRe().FindStringSubmatch(s); m != nil {
		p.emit(Ref{Path: m[1], Line: num(m[2]), Func: m[3], Format: FormatRuby, Summary: true, Frame: 0})
		return true
	}
	if m := minitestLocRe().FindStringSubmatch(strings.TrimSpace(s)); m != nil {
		if p.blk.kind != formatNumbered {
			p.begin(formatNumbered, false)
		}
		p.blk.atSeen = true
		p.emitFrame(Ref{Path: m[2], Line: num(m[3]), Func: m[1], Format: FormatRuby})
		return true
	}
	m := rubyFrameRe().FindStringSubmatch(s)
	if m == nil {
		return false
	}
	indent, lead, path, line, fn, msg := m[1], m[2], m[3], m[4], m[5], m[6]
	switch {
	case p.blk.kind == formatNumbered:
		// A frame of an RSpec or Minitest failure.
		if !p.blk.atSeen && p.blk.msg == "" && lead == "" {
			p.setMsg(strings.TrimSpace(p.prevNB))
		}
		p.blk.atSeen = true
	case indent == "" && lead == "":
		// The first line of an uncaught exception: the site and message.
		p.begin(FormatRuby, false)
		p.setMsg(msg)
		p.blk.atSeen = true
	case p.blk.kind != FormatRuby:
		p.begin(FormatRuby, false)
		if t := strings.TrimSpace(p.prevNB); t != "" {
			p.setMsg(t)
		}
		p.blk.atSeen = true
	}
	p.emitFrame(Ref{Path: path, Line: num(line), Func: fn, Format: FormatRuby})
	return true
}

// rubyContinue ends a Ruby backtrace at its first line that is not a
// frame.
func (p *parser) rubyContinue(s string, blank bool) {
	if blank {
		p.end()
		return
	}
	if !rubyFrameRe().MatchString(s) {
		p.end()
	}
}
