begin
require "haml"

class HAMLTest
  def a; 1; end
end

rescue LoadError
  warn "x"
end

class C
  if Hash.method_defined? :assoc
    def assoc(key)
      1
    end
  else
    def other; 2; end
  end
  unless x
    def u; end
  end
end
