extern "C" int
fuzz(const char* data)
{
  return 0;
}

class Approx {
  template <typename T>
  friend bool operator == (const T& lhs, Approx const& rhs) {
    return true;
  }
  int v;
};
