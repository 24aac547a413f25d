module M
  class Error < StandardError # :nodoc:
  end

  class Empty; end

  class Full
    def self.make
      new
    end
  end
end

class Rack::Builder
  def x; end
end

class Hash2
  def except(*keys)
    keys
  end if RUBY_VERSION >= "3.0"
end
