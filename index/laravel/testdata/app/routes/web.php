<?php

use App\Http\Controllers\InvoiceController;
use App\Http\Controllers\Admin\ReportController as Reports;
use Illuminate\Support\Facades\Route;

Route::get('/', fn () => view('welcome'))->name('home');

Route::middleware(['auth'])->prefix('billing')->name('billing.')->group(function () {
    Route::resource('invoices', InvoiceController::class);
    Route::post('/invoices/{invoice}/send', [InvoiceController::class, 'send'])->name('invoices.send')->middleware('verified');
    Route::group(['prefix' => 'admin', 'as' => 'admin.'], function () {
        Route::get('reports', Reports::class)->name('reports');
    });
});

Route::pattern('id', '[0-9]+');

Route::middleware('auth')->prefix('admin')->name('admin.')->get('/dash', [InvoiceController::class, 'index'])->name('dash');
