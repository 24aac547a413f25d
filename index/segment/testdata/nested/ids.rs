/// A marker.
pub struct Marker;

#[derive(Debug)]
pub struct Id(u32);

struct Pair<T>(T, T) where T: Clone;

struct Full { a: u32 }

trait Shape {
    fn area(&self) -> f64;
}
