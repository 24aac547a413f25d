export function dispatch(req, res) {
  res.send(req.params.action);
}
