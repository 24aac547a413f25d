namespace ns {
class ParseResult
{
  public:
  class Iterator
  {
    public:
    using value_type = int;
    Iterator() = default;
    int next() { return 1; }
  };
  enum class Mode { A, B };
  int size() const { return 0; }
  int n;
};
}
