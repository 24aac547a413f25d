import mongoose from 'mongoose';

const orderSchema = new mongoose.Schema({
  user: { type: mongoose.Schema.Types.ObjectId, required: true, ref: 'User' },
  items: [
    {
      qty: Number,
      product: { type: mongoose.Schema.Types.ObjectId, ref: 'Product' },
    },
  ],
});

const Order = mongoose.model('Order', orderSchema, 'purchase_orders');

export default Order;
