const app = require('./thing');

app.get('/not-a-route', handler);
