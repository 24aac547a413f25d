const express = require('express');
const auth = require('../../middlewares/auth');
const userController = require('../../controllers/user.controller');

const router = express.Router();

router
  .route('/')
  .post(auth('manageUsers'), userController.createUser)
  .get(auth('getUsers'), userController.getUsers);

router
  .route('/:userId')
  .get(auth('getUsers'), userController.getUser)
  .delete(auth('manageUsers'), userController.deleteUser);

router.get('/:userId/avatar', function avatar(req, res) {
  res.sendFile(req.params.userId);
});

module.exports = router;
