'use strict';

/**
 * Module dependencies.
 */

const { EventEmitter } = require('node:events');

const DEFAULT_PORT = 3000;

const methods = [
  'get',
  'post',
];

/**
 * Create an application.
 *
 * @return {Function}
 */
function createApplication() {
  const app = function (req, res, next) {
    app.handle(req, res, next);
  };
  return app;
}

exports.init = function init(app) { return function expressInit(req, res, next) {
  req.res = res;
  next();
}; };

exports.query = function (options) {
  return function query(req, res, next) {
    next();
  };
};

app.handle = function handle(req, res, callback) {
  const router = this.router;
  router.handle(req, res, callback);
};

Router.prototype.route = function route(path) {
  return new Route(path);
};

const compose = (...fns) => (value) => fns.reduceRight((acc, fn) => fn(acc), value);

const mapState = (state) => ({
  user: state.user,
  loading: state.pending > 0,
});

const resize = () =>
  window.requestAnimationFrame(() => {
    layout();
  });

async function* readLines(stream) {
  for await (const chunk of stream) {
    yield chunk.toString();
  }
}

class View extends EventEmitter {
  static defaultEngine = 'html';

  #cache = new Map();

  constructor(name, options = {}) {
    super();
    this.name = name;
    this.options = options;
  }

  get root() { return this.options.root; }

  render = (options, callback) => {
    this.emit('render', options);
    callback(null, this.name);
  };

  lookup(name) { if (this.#cache.has(name)) {
    return this.#cache.get(name);
  } }

  async resolve(dir, file) {
    return `${dir}/${file}`;
  }
}

module.exports = createApplication;
