<?php

namespace App\Http\Controllers\Admin;

use App\Http\Controllers\Controller;
use App\Models\Customer;

class ReportController extends Controller
{
    public function __invoke()
    {
        return Customer::withCount('invoices')->get();
    }
}
