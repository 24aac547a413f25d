class Details {
 public:
  CXXOPTS_NODISCARD
  std::shared_ptr<Value>
  make_storage() const
  {
    return value->clone();
  }

  CXXOPTS_NODISCARD
  const std::string&
  short_name() const
  {
    return m_short;
  }

  explicit operator bool() const { return ok; }
};

Details::operator std::string() const { return m_short; }

CXXOPTS_NODISCARD
const char*
version()
{
  return "1";
}
