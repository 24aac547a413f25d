<?php

use App\Http\Controllers\InvoiceController;

Route::apiResource('customers.invoices', InvoiceController::class)->only(['index', 'show']);
Route::get('legacy/invoices', 'InvoiceController@index');
