#include <string>
#include <vector>

namespace geo {

// A 2D vector.
class Vec {
public:
    Vec(double x, double y) : x_(x), y_(y) {}
    double length() const;

private:
    double x_;
    double y_;
};

double Vec::length() const {
    return x_ * x_ + y_ * y_;
}

template <typename T>
T maxOf(T a, T b) {
    return a > b ? a : b;
}

struct Box {
    int w;
    int h;
};

}  // namespace geo

int main() {
    geo::Vec v(1, 2);
    return (int)v.length();
}
