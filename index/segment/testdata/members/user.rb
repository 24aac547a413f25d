require "json"

MAX_USERS = 10
$registry = {}

module Accounts
  LIMIT = 5

  class User
    ROLE = :member
    # The public fields.
    attr_accessor :name, :email
    attr_reader :id

    def initialize(name)
      @name = name
      local = 1
    end
  end
end
