// Routes registered by a function that receives the app.
module.exports = function legacy(app) {
  const started = Date.now();
  app.get('/legacy/ping', (req, res) => res.send({ pong: Date.now() - started }));
};
