<?php

namespace App\Http\Controllers;

use App\Models\Invoice;
use App\Jobs\SendInvoice;
use Illuminate\Http\Request;

class InvoiceController extends Controller
{
    public function index()
    {
        return Invoice::query()->latest()->paginate();
    }

    public function store(Request $request)
    {
        $invoice = Invoice::create($request->all());
        return redirect()->route('billing.invoices.show', $invoice);
    }

    public function show(Invoice $invoice)
    {
        return view('invoices.show', compact('invoice'));
    }

    public function send(Invoice $invoice)
    {
        SendInvoice::dispatch($invoice);
        return back();
    }
}
