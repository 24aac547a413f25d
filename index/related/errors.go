package related

import "errors"

// ErrNotIndexed means the target file is not in the index: it is new, was
// ignored, or the path is not relative to the workspace root.
var ErrNotIndexed = errors.New("not in the index")

// ErrPastEOF means the target range starts after the end of the file.
var ErrPastEOF = errors.New("range starts past the end of the file")

// ErrNoSymbol means the target file has no chunk for the requested symbol.
var ErrNoSymbol = errors.New("no such symbol in the file")
