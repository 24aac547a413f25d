package index

import (
	"regexp"
	"testing"
)

// TestAnswerFileIsItsPattern checks answerFile against the pattern it
// stands for.
func TestAnswerFileIsItsPattern(t *testing.T) {
	re := regexp.MustCompile(`^[0-9]{3,9}\.answer\.md$`)
	for _, name := range []string{"", "100.answer.md", "12.answer.md", "123456789.answer.md", "1234567890.answer.md",
		"1a0.answer.md", "100.answer.mdx", "100.request.json", ".answer.md", "100.answer.md\n", "x100.answer.md", "٣٣٣.answer.md", "100.Answer.md"} {
		if got, want := answerFile.MatchString(name), re.MatchString(name); got != want {
			t.Errorf("answerFile.MatchString(%q) = %v, the pattern says %v", name, got, want)
		}
	}
}
