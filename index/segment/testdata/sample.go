// Package shapes computes areas of simple shapes.
package shapes

import (
	"errors"
	"math"
)

// ErrNegative is returned for negative dimensions.
var ErrNegative = errors.New("negative dimension")

// Shape is anything with an area.
type Shape interface {
	Area() float64
}

// Circle is a round shape.
type Circle struct {
	Radius float64
}

// Area returns the area of the circle.
func (c *Circle) Area() float64 {
	return math.Pi * c.Radius * c.Radius
}

type (
	// Point is a position.
	Point struct{ X, Y float64 }
	// Meters is a length.
	Meters float64
)

// Total sums the areas of shapes.
func Total(shapes ...Shape) (float64, error) {
	var sum float64
	for _, s := range shapes {
		a := s.Area()
		if a < 0 {
			return 0, ErrNegative
		}
		sum += a
	}
	return sum, nil
}

// Scale is applied to every area.
var Scale = 1.0                // no scaling
func scaled(a float64) float64 { return a * Scale }

func (p Point) String() string { return "point" }
