require "json"
require_relative "helpers"

# Tools for parsing recipes.
module Kitchen
  # A recipe with steps.
  class Recipe
    attr_reader :name

    def initialize(name)
      @name = name
    end

    # Parses JSON into a recipe.
    def self.parse(text)
      new(JSON.parse(text)["name"])
    end
  end
end

def greet(who)
  puts "hello #{who}"
end
