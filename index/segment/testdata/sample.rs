//! Geometry primitives.
use std::fmt;
use std::collections::HashMap;

/// A point in the plane.
#[derive(Debug, Clone)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// Things that can be drawn.
pub trait Draw {
    fn draw(&self) -> String;
    fn name(&self) -> &str {
        "shape"
    }
}

impl Point {
    /// Creates a point.
    #[inline]
    pub fn new(x: f64, y: f64) -> Self {
        Point { x, y }
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

pub enum Shape {
    Dot(Point),
    Line(Point, Point),
}

pub type Registry = HashMap<String, Shape>;

mod util {
    pub fn clamp(v: f64) -> f64 {
        v.max(0.0)
    }
}

fn main() {
    println!("{}", Point::new(1.0, 2.0));
}
