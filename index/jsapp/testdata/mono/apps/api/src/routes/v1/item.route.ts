import { Router } from 'express';
import { listItems, showItem } from '../../handlers/items';
import * as admin from '../../handlers/admin';

const router = Router();

router.get('/', listItems);
router.get('/:id', showItem);
router.all('/admin/:action', admin.dispatch);

export default router;
