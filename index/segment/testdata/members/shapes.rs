use std::fmt;

/// The largest side accepted.
pub const MAX_SIDE: u32 = 1000;
static mut COUNTER: u32 = 0;

/// A point on the plane.
#[derive(Debug, Clone)]
pub struct Point {
    /// Horizontal offset.
    pub x: i32,
    y: i32,
}

pub enum Shape {
    Circle(f64),
    Square { side: f64 },
    Empty,
}

impl Point {
    pub const ORIGIN: Point = Point { x: 0, y: 0 };

    pub fn dist(&self) -> f64 {
        const SCALE: f64 = 1.0;
        SCALE
    }
}

mod limits {
    pub const MIN: i32 = -1;
}
