# frozen_string_literal: true

require 'rack/protection'

module Sinatra
  VERSION = '4.1.0'

  DEFAULT_OPTIONS = {
    reaction: :default_reaction,
    logging: true,
  }.freeze

  # Hash with indifferent access.
  class IndifferentHash < Hash
    def self.[](*args)
      new.merge!(Hash[*args])
    end

    def initialize(*args)
      super(*args)
    end

    def fetch(key, *args) = super(convert_key(key), *args)

    def engines
      engines = {
        css: %i[sass scss],
        xml: %i[builder nokogiri],
      }
      engines.default = []
      engines
    end

    def except(*keys)
      keys.map!(&method(:convert_key))
      super(*keys)
    end if Gem::Version.new(RUBY_VERSION) >= Gem::Version.new('3.0')

    def protect(*args)
      condition {
        authorized?(*args)
      }
    end

    def empty_hook; end

    def noop
    end

    def dig(key, *other_keys) = super(convert_key(key), *other_keys)

    private

    def convert_key(key) key.is_a?(Symbol) ? key.to_s : key end

    def convert_value(value)
      case value
      when Hash then self.class[value]
      else value
      end
    end
  end

  class NotFound < NameError
  end

  class Base
    DEFAULT_SETTINGS = {
      environment: :development,
    }

    class << self
      def settings
        self
      end

      def get(path, opts = {}, &block) route('GET', path, opts, &block) end
    end
  end
end

Helper = Struct.new(:name) do
  def greet
    "hello #{name}"
  end
end
