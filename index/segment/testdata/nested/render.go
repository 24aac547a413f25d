package tui

import "io"

// Renderer draws the screen.
type Renderer interface {
	// Init starts the renderer.
	Init() error
	io.Closer
	Size() (width, height int)
}
