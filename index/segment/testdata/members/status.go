package http

import (
	"errors"
	"time"
)

// StatusNotFound is returned when nothing matches the path.
const StatusNotFound = 404

// HTTP status codes as registered with IANA.
const (
	// StatusOK means the request succeeded.
	StatusOK         = 200 // RFC 9110, 15.3.1
	StatusCreated    = 201
	statusA, statusB = 1, 2
)

// DefaultClient is the zero Client.
var DefaultClient = &Client{}

var (
	// ErrBodyNotAllowed is returned by writes on HEAD requests.
	ErrBodyNotAllowed = errors.New("http: request method or response status code does not allow body")
)

// Client sends requests.
type Client struct {
	// Timeout bounds the whole exchange.
	Timeout time.Duration
	jar, tr int
	sync.Mutex
}

// Do sends req.
func (c *Client) Do(req string) error {
	const local = 1
	var tmp = local
	_ = tmp
	return nil
}

type (
	Header struct{ Key string }
	Code   int
)

const /* kinds */ (
	kindA = iota
	kindB
)
